/** The shopper's knowledge base as search reads it (src/knowledge/service.ts builds it). */
import type { KnowledgeMatcher } from './matcher.js';

export interface ShopperKnowledge {
  /** The matcher once the base's vectors are ready (built in the background at first start); null before. */
  matcher(): KnowledgeMatcher | null;
}
