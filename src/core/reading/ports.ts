/**
 * Reading a search (docs/search.md, "Readers"): one interface turns what was asked (the message,
 * the conversation before it, the catalog it is read against) into what to search for. Two
 * readers implement it: the offline reader (offline-reader.ts, the default: the catalog's words,
 * the embedding model and the shopper's knowledge base) and the model reader (model-reader.ts: a
 * language model behind an OpenAI-compatible chat endpoint, the offline reader as its fallback).
 */
import type { KnowledgeMatch } from '../knowledge/matcher.js';
import type { RetrievalMode } from '../ranking/retrieval.js';
import type { ReaderName } from '../schemas/search.js';
import type { ConversationVectors } from '../understanding/conversation.js';
import type { Need, Turn } from '../understanding/need.js';

/** What a search asks, redacted and ready for matching (search-service.ts builds it). */
export interface ReadInput {
  /** The message as sent, redacted: the sensitive-topic patterns read it as said. */
  message: string;
  /** The message for matching: redaction placeholders out, its price phrase kept. */
  current: string;
  /** The same without its price phrase: what is matched. */
  text: string;
  /** The conversation before the message (the request's turns, else the session's earlier searches), each for matching. */
  before: readonly Turn[];
  /** The conversation before the message as said (redacted, price phrases kept): what a language model reads. */
  said: readonly Turn[];
  /** The request's own earlier turns and the session's earlier queries, for a product query's context. */
  earlierTurns: readonly Turn[];
  earlierQueries: readonly string[];
  /** 'lexical' (evaluation only) embeds nothing. */
  retrieval: RetrievalMode;
}

/** Hard constraints a reader found in the conversation: filters where the request and the message's own price say nothing. */
export interface ReadConstraints {
  minPrice?: number;
  maxPrice?: number;
  brand?: string;
}

/** What to search for, as a reader read it. */
export interface Reading {
  reader: ReaderName;
  /**
   * A conversation's need (null: searched as a product query, `text` plus `context`). The
   * explanations name its words and turns; search scores it with P(need).
   */
  need: Need | null;
  /** What retrieval matches: the product query, or the need's words (empty: nothing but a price, so search browses by price). */
  text: string;
  /** A product query as typed, its price phrase kept: what spelling correction reads the words in. */
  current: string;
  /** A product query's words from earlier turns ('' for none). */
  context: string;
  /** The earlier turn those came from, for the explanation. */
  usedTurn: string | null;
  /** metadata.interpreted_query. */
  interpreted: string;
  /** A conversation's vectors when the reader embedded it (retrieval then reuses them). */
  vectors: ConversationVectors | null;
  /** The product type the shopper's knowledge base read, with its score. */
  known: KnowledgeMatch | null;
  /** Why nothing is to be searched: a sensitive topic, or (the model reader's judgement) no shopping need. */
  silence: 'sensitive_topic' | 'no_shopping_need' | null;
  constraints: ReadConstraints;
}

export interface NeedReader {
  read(input: ReadInput): Promise<Reading>;
  /** Prepares what reading needs before the first search (examples embedded, vocabulary built). */
  warm(): Promise<void>;
}

/** A conversation as the model reads it: the turns before the message, then the message (all redacted). */
export interface ModelConversation {
  turns: readonly Turn[];
  message: string;
}

/**
 * A language model that reads conversations (src/reader/openai-chat.ts): its raw answer, parsed
 * JSON or whatever arrived; the model reader validates it. Rejects on any failure, and when
 * `signal` aborts.
 */
export interface ReaderModel {
  /** The model's name, part of the answer cache's key. */
  readonly name: string;
  read(conversation: ModelConversation, signal: AbortSignal): Promise<unknown>;
}
