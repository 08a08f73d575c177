/**
 * The offline reader's knowledge stage (docs/knowledge.md, "Reading with it"): a conversation that asks for
 * a kind of product without naming it gets that kind from the shopper's knowledge base. Its
 * names join the need words, the query vector leans towards its first name, and the need records
 * which of the person's needs led there, for the interpreted query and the explanations.
 */
import type { KnowledgeMatch, KnowledgeMatcher } from '../knowledge/matcher.js';
import { stem, wordTokens } from '../ranking/lexical.js';
import { meanVector } from '../ranking/vectors.js';
import type { ConversationVectors } from '../understanding/conversation.js';
import { type Need, namesType } from '../understanding/need.js';
import type { NeedVocabulary } from '../understanding/vocabulary.js';

/** Weight of the words of the type's first name, and of further names' words, against the heaviest need word (1). */
const FIRST_NAME_WEIGHT = 1;
const OTHER_NAME_WEIGHT = 0.5;
/** Names whose words join the need. */
const NAMES_USED = 2;

/**
 * Matches a conversation whose words name no kind of product (`need.named` is false) against the
 * base, offering only types the catalog sells: under a name whose head word names a kind of
 * product there (need.ts). The need and vectors as they were when nothing wins.
 */
export function readWithKnowledge(
  need: Need,
  vectors: ConversationVectors,
  matcher: KnowledgeMatcher,
  vocabulary: NeedVocabulary,
): { need: Need; vectors: ConversationVectors; known: KnowledgeMatch | null } {
  const sells = (name: string) => namesType(stem(wordTokens(name).at(-1) ?? ''), vocabulary);
  const known = matcher.match(vectors.turns, need.spoken, sells);
  if (known === null) return { need, vectors, known };
  return { ...withKnowledge(need, vectors, known, (word) => vocabulary.df(stem(word)) > 0), known };
}

/**
 * The need and vectors with the knowledge base's reading: `known` is the matched type, `knows`
 * whether the catalog uses a word at all (a name's word it never uses would only cost recall).
 */
function withKnowledge(
  need: Need,
  vectors: ConversationVectors,
  known: KnowledgeMatch,
  knows: (word: string) => boolean,
): { need: Need; vectors: ConversationVectors } {
  const words = [...need.words];
  const have = new Set(words.map((w) => w.word));
  known.names.slice(0, NAMES_USED).forEach((name, i) => {
    for (const word of wordTokens(name)) {
      if (have.has(word) || !knows(word)) continue;
      have.add(word);
      words.push({ word, weight: i === 0 ? FIRST_NAME_WEIGHT : OTHER_NAME_WEIGHT, source: 'type', turn: null, optional: i > 0 });
    }
  });
  const first = known.names[0] ?? known.type;
  const interpreted = need.interpreted.includes(first) ? need.interpreted : `${first} ${need.interpreted}`.trim();
  return {
    need: { ...need, words, interpreted, knowledge: { type: known.type, because: known.because.text } },
    vectors: { ...vectors, query: meanVector([vectors.query, known.vector]) },
  };
}
