import type { Clock } from '../clock.js';
import type { Logger } from '../shared-ports.js';
import type { LearningStore } from './ports.js';
import { estimatePositionBias, type PositionBias } from './position-bias.js';
import { queryBoosts } from './query-boosts.js';

const DAY_MS = 86_400_000;
/** How far back a query's own events count: recent enough to follow catalog and taste changes. */
const QUERY_WINDOW_MS = 90 * DAY_MS;
/** The newest searches of one query read per search: bounded work on popular queries. */
const QUERY_SEARCHES = 500;
/**
 * Position bias is re-estimated from the account's newest searches this often. The EM runs on the
 * event loop, so its work is bounded (its cost: docs/search.md). Each estimate starts from the
 * 1/k prior, so one that stops before converging is still a step from the prior towards the data.
 */
const BIAS_TTL_MS = 10 * 60_000;
const BIAS_SEARCHES = 2_000;
const BIAS_ITERATIONS = 200;

/** Until an account has logs to estimate from: people look at rank k about 1/k as often as at rank 1. */
const PRIOR_BIAS: PositionBias = {
  relative: Array.from({ length: 10 }, (_, k) => 1 / (k + 1)),
  impressions: new Array(10).fill(0),
  iterations: 0,
  converged: false,
};

/**
 * Per-query learning at search time: the rank-score multipliers queryBoosts() derives from this
 * query's earlier searches, corrected by the account's position bias (estimated from its own
 * logs, cached, re-estimated every 10 minutes). Reads committed rows only, so every process on
 * one database learns the same thing.
 */
export class QueryLearning {
  private readonly bias = new Map<string, { at: number; value: Promise<PositionBias> }>();

  constructor(private readonly deps: { store: LearningStore; clock: Clock; logger: Logger }) {}

  /** Never fails a search: if the event log cannot be read, this search ranks without learning. */
  async boosts(accountId: string, normalizedQuery: string): Promise<Map<string, number>> {
    const now = this.deps.clock.now();
    try {
      const [bias, events] = await Promise.all([
        this.positionBias(accountId, now),
        this.deps.store.queryEvents(accountId, normalizedQuery, new Date(now.getTime() - QUERY_WINDOW_MS), QUERY_SEARCHES),
      ]);
      return queryBoosts(events, bias);
    } catch (err) {
      this.deps.logger.warn({ err }, 'reading what earlier searches of this query taught failed; ranking without it');
      return new Map();
    }
  }

  private positionBias(accountId: string, now: Date): Promise<PositionBias> {
    const held = this.bias.get(accountId);
    if (held && now.getTime() - held.at < BIAS_TTL_MS) return held.value;
    const value = this.deps.store
      .shownResults(accountId, new Date(now.getTime() - QUERY_WINDOW_MS), BIAS_SEARCHES)
      .then((shown) => {
        // Where rankings never vary θ is not identified, and EM leaves it near the prior it starts from.
        return shown.length === 0 ? PRIOR_BIAS : estimatePositionBias(shown, { maxIterations: BIAS_ITERATIONS, tolerance: 1e-4 });
      })
      .catch((err: unknown) => {
        this.deps.logger.warn({ err }, 'position-bias estimation failed; using the prior');
        this.bias.delete(accountId);
        return PRIOR_BIAS;
      });
    this.bias.set(accountId, { at: now.getTime(), value });
    return value;
  }
}
