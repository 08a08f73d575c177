import { LRUCache } from 'lru-cache';
import { toEmbeddingInput } from '../catalog/embedding-text.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, parseId } from '../ids.js';
import type { Meter } from '../metering.js';
import { applyPiiPolicy } from '../pii/pii.js';
import type { Feedback, FeedbackRequest } from '../schemas/feedback.js';
import type { Embedder, Logger, Principal } from '../shared-ports.js';
import { demotionFactors } from './demotion.js';
import type { FeedbackStore, FeedbackVote } from './ports.js';
import { latestPerPair, mergeVoteRows } from './votes.js';

const VOTES_CONSIDERED = 2_000;
/**
 * When the account's feedback changes, only votes from this long before the newest one held are
 * read again: a vote another process stamped a little earlier by its clock is not missed.
 */
const CLOCK_SKEW_MS = 5_000;
/** Held votes are read whole again after this long, which catches a vote stamped further back. */
const FULL_READ_MS = 60_000;

/** An account's newest votes as one process holds them. */
interface HeldVotes {
  version: string;
  /** Newest first, every row (re-votes included), at most votesConsidered. */
  rows: FeedbackVote[];
  /** The latest vote per (search, product) of `rows`: what ranking uses. */
  votes: FeedbackVote[];
  /** When `rows` was last read whole (ms). */
  fullReadAt: number;
}

export interface FeedbackServiceDeps {
  store: FeedbackStore;
  clock: Clock;
  logger: Logger;
  /** The search embedder; without it feedback is stored but cannot steer ranking. */
  embedder?: Embedder;
  /** How many of an account's newest votes ranking looks at (default 2,000). */
  votesConsidered?: number;
  /** Told how long each vote and its event took to write (docs/operations.md). */
  meter?: Pick<Meter, 'eventWritten'>;
}

// Redaction placeholders are not what a query is about (search drops them before matching too).
const queryForSimilarity = (query: string) => toEmbeddingInput(query.replace(/\[(?:EMAIL|PHONE|CARD|SSN|IBAN|IP)\]/g, ' '));

/**
 * POST /feedback (docs/clicks.md) and what ranking makes of it. Each vote keeps the embedding of its
 * search's query, so a later search can find the votes cast for the same or a near-identical query.
 */
export class FeedbackService {
  private readonly votesByAccount = new LRUCache<string, HeldVotes>({ max: 1_000 });
  /** Reads in progress by account and version: searches that see the same change share one. */
  private readonly reading = new Map<string, Promise<HeldVotes>>();

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
    const vector = await this.queryVector(search.query);
    const writing = performance.now();
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
      ...vector,
      createdAt: now,
    });
    this.deps.meter?.eventWritten('feedback', (performance.now() - writing) / 1000);
    return {
      feedback_id: id,
      request_id: requestId,
      product_id: productId,
      relevant: body.relevant,
      created_at: now.toISOString(),
      livemode: principal.livemode !== false,
    };
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
    const held = await this.heldVotes(accountId, embedder.model, version);
    if (held.votes.length === 0) return new Map();
    const [vector] = await embedder.embed([queryForSimilarity(query)]);
    return demotionFactors(vector!, held.votes);
  }

  /**
   * The account's votes at `version`. Feedback arrives while searches run, so most changes are a
   * few new rows: those are read and merged into what is held, instead of reading up to 2,000
   * rows with their query vectors again for every new vote, and searches that see the same change
   * share one read (the cost of whole reads: docs/search.md, "The measurements behind the code").
   */
  private heldVotes(accountId: string, model: string, version: string): Promise<HeldVotes> {
    const held = this.votesByAccount.get(accountId);
    if (held?.version === version) return Promise.resolve(held);
    const key = `${accountId} ${version}`;
    let read = this.reading.get(key);
    if (!read) {
      read = this.readVotes(accountId, model, version, held).finally(() => this.reading.delete(key));
      this.reading.set(key, read);
    }
    return read;
  }

  private async readVotes(accountId: string, model: string, version: string, held: HeldVotes | undefined): Promise<HeldVotes> {
    const limit = this.deps.votesConsidered ?? VOTES_CONSIDERED;
    const now = this.deps.clock.now().getTime();
    const newest = held?.rows[0];
    let next: HeldVotes;
    if (held && newest && now - held.fullReadAt < FULL_READ_MS) {
      const fresh = await this.deps.store.votes(accountId, model, limit, new Date(newest.createdAt.getTime() - CLOCK_SKEW_MS));
      const rows = mergeVoteRows(held.rows, fresh, limit);
      next = { version, rows, votes: latestPerPair(rows), fullReadAt: held.fullReadAt };
    } else {
      const rows = await this.deps.store.votes(accountId, model, limit);
      next = { version, rows, votes: latestPerPair(rows), fullReadAt: now };
    }
    // Should a slower read of an older version land last, the next search sees the newer version and reads again.
    this.votesByAccount.set(accountId, next);
    return next;
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
