/**
 * The offline reader (docs/search.md, "Readers"), the default: no language model, CPU only. A
 * product query is searched as typed, with the words of earlier turns when it is short; a
 * conversation becomes a need in the catalog's words (understanding/need.ts), embedded, checked
 * for a sensitive topic, and matched against the shopper's knowledge base when its words name no
 * kind of product (knowledge-stage.ts).
 */
import { toEmbeddingInput } from '../catalog/embedding-text.js';
import type { ShopperKnowledge } from '../knowledge/ports.js';
import type { CatalogLexicon } from '../ranking/lexical.js';
import { contextualQuery } from '../ranking/query-text.js';
import type { Embedder } from '../shared-ports.js';
import { ConversationReader, type ConversationVectors } from '../understanding/conversation.js';
import { isProductQuery, type Need, type Turn, understandNeed } from '../understanding/need.js';
import type { CatalogVocabulary } from '../understanding/vocabulary.js';
import { readWithKnowledge } from './knowledge-stage.js';
import type { NeedReader, ReadInput, Reading } from './ports.js';

/** Earlier turns read for a sensitive topic, the latest (each up to 4,000 characters). */
const SENSITIVE_TURNS = 8;

/** Words of a conversation the catalog has never seen that get a spelling scan, per search (docs/search.md, "Bounds on one request's work"). */
const MAX_NEED_CORRECTIONS = 16;

export interface OfflineReaderDeps {
  embedder: Embedder;
  /** The serving catalog's need vocabulary and lexicon (rebuilt when the catalog version changes). */
  vocabulary: CatalogVocabulary;
  lexicon: CatalogLexicon;
  knowledge?: ShopperKnowledge;
}

export class OfflineReader implements NeedReader {
  private readonly conversations: ConversationReader;

  constructor(private readonly deps: OfflineReaderDeps) {
    this.conversations = new ConversationReader(deps.embedder);
  }

  async warm(): Promise<void> {
    // The examples are best-effort here: an embedding service that is down at start must not stop
    // the server (a conversation's search embeds them again, and fails as any search would then).
    await Promise.all([this.deps.vocabulary.get(), this.conversations.warm().catch(() => undefined)]);
  }

  async read(input: ReadInput): Promise<Reading> {
    const { text, before } = input;
    if (isProductQuery(text, before)) {
      const q = contextualQuery(text, input.earlierTurns, input.earlierQueries);
      return { ...EMPTY_READING, text, current: input.current, context: q.added, usedTurn: q.usedTurn, interpreted: q.text.trim() };
    }
    let need = await this.understand(text, before);
    const spoken = need.spoken.join(' ');
    const reading: Reading = { ...EMPTY_READING, need, text: spoken, interpreted: need.interpreted };
    // Nothing but a price: search browses by price, and there is nothing to embed.
    if (toEmbeddingInput(spoken) === '' || input.retrieval === 'lexical') return reading;
    // The conversation is embedded here, with its last turns, which say whether it touches a
    // sensitive topic: then nothing is searched at all (docs/search.md, "Sensitive topics").
    let vectors = await this.conversations.embed(need);
    const topic = await this.conversations.sensitive([input.message, ...before.slice(-SENSITIVE_TURNS).map((t) => t.content)], vectors);
    if (topic !== null) return { ...reading, interpreted: '', vectors, silence: 'sensitive_topic' };
    // A kind of product the person describes without naming it, from the shopper's knowledge base.
    const matcher = need.named ? undefined : this.deps.knowledge?.matcher();
    if (matcher) {
      const read = readWithKnowledge(need, vectors, matcher, await this.deps.vocabulary.get());
      ({ need, vectors } = read);
      return { ...reading, need, interpreted: need.interpreted, vectors, known: read.known };
    }
    return { ...reading, vectors };
  }

  /** How close the conversation's last message is to chat that asks for nothing and to ways of asking for something to buy (the need decision's signals). */
  likeness(vectors: ConversationVectors): Promise<{ chatter: number; shopping: number }> {
    return this.conversations.chatterSimilarity(vectors);
  }

  /** A conversation's need, words the catalog does not know corrected against its vocabulary (bounded as a query's are). */
  private async understand(query: string, before: readonly Turn[]): Promise<Need> {
    const [vocabulary, lexicon] = await Promise.all([this.deps.vocabulary.get(), this.deps.lexicon.get()]);
    const budget = { scans: MAX_NEED_CORRECTIONS };
    const correct = (word: string) => {
      const fixed = lexicon.correct([word], budget).words;
      return fixed.length === 1 && fixed[0] === word ? null : fixed;
    };
    return understandNeed(query, before, { vocabulary, correct });
  }
}

/** A reading with nothing in it yet, by the offline reader: each reader fills in what it read. */
export const EMPTY_READING: Readonly<Reading> = {
  reader: 'offline',
  need: null,
  text: '',
  current: '',
  context: '',
  usedTurn: null,
  interpreted: '',
  vectors: null,
  known: null,
  silence: null,
  constraints: {},
};
