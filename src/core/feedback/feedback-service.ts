import { LRUCache } from 'lru-cache';
import { toEmbeddingInput } from '../catalog/embedding-text.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, parseId } from '../ids.js';
import { applyPiiPolicy } from '../pii/pii.js';
import type { Embedder, FeedbackStore, FeedbackVote, Logger, Principal } from '../ports.js';
import type { Feedback, FeedbackRequest } from '../schemas/feedback.js';
import { demotionFactors } from './demotion.js';

/** How many of an account's newest votes ranking looks at. */
const VOTES_CONSIDERED = 2_000;

export interface FeedbackServiceDeps {
  store: FeedbackStore;
  clock: Clock;
  logger: Logger;
  /** The search embedder; without it feedback is stored but cannot steer ranking. */
  embedder?: Embedder;
}

// Redaction placeholders are not what a query is about (search drops them before matching too).
const queryForSimilarity = (query: string) => toEmbeddingInput(query.replace(/\[(?:EMAIL|PHONE|CARD|SSN|IBAN|IP)\]/g, ' '));

/**
 * POST /feedback (CONTRACT §6) and what ranking makes of it. Each vote keeps the embedding of its
 * search's query, so a later search can find the votes cast for the same or a near-identical query.
 */
export class FeedbackService {
  private readonly votesByAccount = new LRUCache<string, { version: string; votes: FeedbackVote[] }>({ max: 1_000 });

  constructor(private readonly deps: FeedbackServiceDeps) {}

  /**
   * 404 not_found when request_id is not a search of this account; 422 product_not_in_results when
   * the product was not among its results; 422 pii_detected for a reason with personal data under
   * the `reject` policy (under `redact` it is stored redacted). Raw PII is never stored.
   */
  async submit(principal: Principal, body: FeedbackRequest): Promise<Feedback> {
    const requestId = parseId('request', body.request_id);
    const search = requestId === null ? null : await this.deps.store.findSearch(principal.accountId, requestId);
    if (requestId === null || search === null) throw new AppError('not_found', `No search ${body.request_id} in this account.`);
    const productId = parseId('product', body.product_id);
    if (productId === null || !search.productIds.includes(productId)) {
      throw new AppError('product_not_in_results', `Product ${body.product_id} was not among the results of search ${body.request_id}.`, {
        errors: [{ path: 'body.product_id', message: 'not among the results of this search' }],
      });
    }
    const reason = body.reason === undefined ? null : applyPiiPolicy(body.reason, principal.piiPolicy ?? 'redact', 'reason').text;
    const now = this.deps.clock.now();
    const id = newId();
    await this.deps.store.insert({
      id,
      accountId: principal.accountId,
      keyId: principal.keyId,
      requestId,
      productId,
      relevant: body.relevant,
      reason: reason === '' ? null : reason,
      userClicked: body.user_clicked ?? null,
      query: search.query,
      ...(await this.queryVector(search.query)),
      createdAt: now,
    });
    return { feedback_id: id, request_id: requestId, product_id: productId, relevant: body.relevant, created_at: now.toISOString() };
  }

  /**
   * Rank multipliers (≤ 1) for products voted not relevant for `query` or a near-identical one;
   * products without such votes are absent. One count query when the account has no feedback.
   */
  async demotions(accountId: string, query: string): Promise<Map<string, number>> {
    const embedder = this.deps.embedder;
    if (!embedder) return new Map();
    const version = await this.deps.store.version(accountId);
    if (version.startsWith('0:')) return new Map();
    let cached = this.votesByAccount.get(accountId);
    if (cached?.version !== version) {
      cached = { version, votes: await this.deps.store.votes(accountId, embedder.model, VOTES_CONSIDERED) };
      this.votesByAccount.set(accountId, cached);
    }
    if (cached.votes.length === 0) return new Map();
    const [vector] = await embedder.embed([queryForSimilarity(query)]);
    return demotionFactors(vector!, cached.votes);
  }

  private async queryVector(query: string): Promise<{ model: string | null; queryVector: Float32Array | null }> {
    const embedder = this.deps.embedder;
    if (!embedder) return { model: null, queryVector: null };
    try {
      const [vector] = await embedder.embed([queryForSimilarity(query)]);
      return { model: embedder.model, queryVector: vector ?? null };
    } catch (err) {
      // The vote is still worth keeping (analytics); it just cannot steer ranking.
      this.deps.logger.warn({ err }, 'embedding a feedback query failed; stored without a vector');
      return { model: null, queryVector: null };
    }
  }
}
