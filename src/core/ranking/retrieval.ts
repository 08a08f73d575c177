import { toEmbeddingInput } from '../catalog/embedding-text.js';
import type { CatalogFilter, CatalogStore } from '../catalog/ports.js';
import type { Embedder } from '../shared-ports.js';
import { embedNeed } from '../understanding/conversation.js';
import type { Need } from '../understanding/need.js';
import { analyzeNeed, analyzeQuery } from './features.js';
import { type CatalogLexicon, wordTokens } from './lexical.js';
import { CONVERSATIONAL_WORDS } from './query-text.js';
import { type Candidate, type RankingModel, rankCandidates } from './ranking.js';

/**
 * Candidate retrieval: the full-text and the vector search with the filter pushed into both,
 * fused and scored by a ranking model. The one path shared by search, evaluation, calibration
 * and cold-start fitting, so every fit sees the features search uses.
 */

export type RetrievalMode = 'hybrid' | 'lexical' | 'dense';

/**
 * How many products each retrieval contributes before fusion: 100 each ranked better than any
 * smaller split on both labelled sets, because the title-structure features find relevant
 * products deep in the full-text list (measurements: docs/relevance.md, "Retrieval depth").
 */
export const RETRIEVAL_DEPTH = 100;

/** Words that carry the request: canonical measures, no stop words, no conversational filler ("i need", "looking for"). */
const requestWords = (text: string) => wordTokens(text).filter((w) => !CONVERSATIONAL_WORDS.has(w));

/**
 * Bounds on the lexical work of one request. The embedding reads the first 400 characters
 * (about 64 words), so the full-text query and the ranking features read the query's first
 * 64 words too; the conversation adds at most 32 distinct words of its own; and at most 16 words
 * the catalog has not seen get a vocabulary scan for a spelling correction (earlier requests'
 * corrections are remembered and free). Typed queries are far shorter than any of these.
 */
const MAX_QUERY_WORDS = 64;
const MAX_CONTEXT_WORDS = 32;
const MAX_CORRECTION_SCANS = 16;

/** The conversation's words that the query does not already have, most recent turn first, the first MAX_CONTEXT_WORDS. */
function contextWords(text: string, queryWords: readonly string[]): string[] {
  const seen = new Set(queryWords);
  const out: string[] = [];
  for (const w of requestWords(text)) {
    if (out.length >= MAX_CONTEXT_WORDS) break;
    if (seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

/**
 * Both retrievals with the filter pushed down, fused into scored candidates: the one path shared
 * by search, evaluation and calibration (tools/relevance/eval.ts, tools/relevance/calibrate.ts),
 * so fitting sees the features search uses. The full-text query goes out while the query is being
 * embedded.
 */
export async function retrieveCandidates(
  deps: { catalog: CatalogStore; embedder: Embedder; lexicon: CatalogLexicon },
  input: {
    queryText: string;
    contextText?: string;
    currentQuery: string;
    /** A conversation's need (understanding/need.ts): searched instead of the texts above. */
    need?: Need;
    /** The need's embedding, when the caller has it already. */
    queryVector?: Float32Array;
    filter: CatalogFilter;
    retrieval: RetrievalMode;
    model: RankingModel;
  },
): Promise<Candidate[]> {
  if (input.need?.kind === 'conversation') return retrieveForNeed(deps, { ...input, need: input.need });
  const contextText = input.contextText ?? '';
  const matchText = contextText === '' ? input.queryText : `${input.queryText} ${contextText}`;
  // The embedding runs on its own thread (the default model) or remotely: start it first, and
  // correct spelling and send the full-text query while it runs.
  const embedded = input.retrieval === 'lexical' ? null : deps.embedder.embed([toEmbeddingInput(matchText)]);
  embedded?.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
  const lexicon = await deps.lexicon.get();
  const budget = { scans: MAX_CORRECTION_SCANS };
  const queryWords = requestWords(input.queryText).slice(0, MAX_QUERY_WORDS);
  const words = [...lexicon.correct(queryWords, budget).words, ...lexicon.correct(contextWords(contextText, queryWords), budget).words];
  const current = lexicon.correct(requestWords(input.currentQuery).slice(0, MAX_QUERY_WORDS), budget).words;
  let queryVector: Float32Array | null = null;
  const dense = async () => {
    const [vector] = await embedded!;
    queryVector = vector!;
    return deps.catalog.vectorSearch(vector!, { limit: RETRIEVAL_DEPTH, filter: input.filter, withVectors: true });
  };
  const [lexicalResults, denseResults] = await Promise.all([
    input.retrieval === 'dense' || words.length === 0
      ? []
      : deps.catalog.textSearch(words.join(' '), { limit: RETRIEVAL_DEPTH, filter: input.filter, withVectors: true }),
    input.retrieval === 'lexical' ? [] : dense(),
  ]);
  return rankCandidates({ ...analyzeQuery(words, current, lexicon), words }, lexicalResults, denseResults, lexicon, input.model, queryVector);
}

/** Need words searched at most: the heaviest; the rest add noise to the full-text query. */
const MAX_NEED_WORDS = 10;

/**
 * A conversation's retrieval: the full text searches the need's heaviest words, the embedding
 * reads the need's text, and the features weigh each word by how much it carries the need.
 */
async function retrieveForNeed(
  deps: { catalog: CatalogStore; embedder: Embedder; lexicon: CatalogLexicon },
  input: { need: Need; queryVector?: Float32Array; filter: CatalogFilter; retrieval: RetrievalMode; model: RankingModel },
): Promise<Candidate[]> {
  const { need } = input;
  const embedded =
    input.retrieval === 'lexical'
      ? null
      : input.queryVector !== undefined
        ? Promise.resolve(input.queryVector)
        : embedNeed(deps.embedder, need).then((v) => v.query);
  embedded?.catch(() => undefined);
  const lexicon = await deps.lexicon.get();
  const heaviest = [...need.words].sort((a, b) => b.weight - a.weight).slice(0, MAX_NEED_WORDS);
  const words = heaviest.map((w) => w.word);
  let queryVector: Float32Array | null = null;
  const dense = async () => {
    const vector = await embedded!;
    queryVector = vector;
    return deps.catalog.vectorSearch(vector, { limit: RETRIEVAL_DEPTH, filter: input.filter, withVectors: true });
  };
  const [lexicalResults, denseResults] = await Promise.all([
    input.retrieval === 'dense' || words.length === 0
      ? []
      : deps.catalog.textSearch(words.join(' '), { limit: RETRIEVAL_DEPTH, filter: input.filter, withVectors: true }),
    input.retrieval === 'lexical' ? [] : dense(),
  ]);
  const ordered = need.words.map((w) => w.word);
  return rankCandidates({ ...analyzeNeed(need.words, lexicon), words: ordered }, lexicalResults, denseResults, lexicon, input.model, queryVector);
}
