import type { RecordedSearch, SearchStore, SessionState } from '../../core/search/ports.js';
import { eventData } from '../../core/webhooks/events.js';
import type { Db } from './db.js';
import { appendEventClause } from './outbox.js';
import { pruneRowsBefore } from './prune.js';

export class PgSearchStore implements SearchStore {
  constructor(private readonly db: Db) {}

  async loadSession(accountId: string, sessionId: string, now: Date, ttlMs: number): Promise<SessionState | null> {
    // The session row and the products clicked in it (billable clicks on its impressions), in one
    // round trip. Clicks are not written into the session row: that would put a second write on
    // the hot click path.
    const rows = await this.db.query<{ state: SessionState; clicked: string[] | null }>(
      `SELECT s.state,
              (SELECT array_agg(DISTINCT i.product_id::text) FROM impressions i JOIN clicks c ON c.impression_id = i.id AND c.billable
                WHERE i.account_id = s.account_id AND i.session_id = s.id) AS clicked
         FROM search_sessions s WHERE s.account_id = $1 AND s.id = $2 AND s.last_used_at > $3`,
      [accountId, sessionId, new Date(now.getTime() - ttlMs)],
    );
    const row = rows[0];
    if (!row) return null;
    return { ...row.state, clickedProductIds: [...new Set([...row.state.clickedProductIds, ...(row.clicked ?? [])])] };
  }

  /**
   * The search row, its impressions, the session and the outbox event in ONE statement: atomic
   * like a transaction, but one round trip instead of six (BEGIN, four statements, COMMIT).
   * Foreign keys are checked at the end of the statement, so the impressions may reference the
   * search row inserted beside them.
   */
  async recordSearch(s: RecordedSearch): Promise<void> {
    const event = appendEventClause(22, {
      accountId: s.accountId,
      type: 'search',
      createdAt: s.createdAt,
      data: eventData.search({ requestId: s.requestId, sessionId: s.sessionId, query: s.query, productIds: s.impressions.map((i) => i.productId) }),
    });
    // Each result's features travel as one flat array sliced per row: one parameter, not one per result.
    const width = s.impressions[0]?.features?.length ?? 0;
    const logged = width > 0 && s.impressions.every((i) => i.features?.length === width);
    await this.db.query(
      `WITH search AS (
         INSERT INTO search_requests (id, account_id, key_id, session_id, query, normalized_query, filters, result_count,
           total_matches, took_ms, created_at, ranking_model, interleaved_with)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $17, $18)
       ), shown AS (
         INSERT INTO impressions (id, request_id, account_id, key_id, session_id, product_id, position, created_at, features, team, category_id)
         SELECT i.id, $1, $2, $3, $4, i.product_id, i.position, $11,
                CASE WHEN $20::int > 0 THEN ($16::real[])[(i.n - 1) * $20::int + 1 : i.n * $20::int] END, i.team, i.category_id
         FROM unnest($12::uuid[], $13::uuid[], $14::int[], $19::smallint[], $21::int[]) WITH ORDINALITY AS i(id, product_id, position, team, category_id, n)
       ), session AS (
         INSERT INTO search_sessions (account_id, id, state, created_at, last_used_at) VALUES ($2, $4, $15::jsonb, $11, $11)
         ON CONFLICT (account_id, id) DO UPDATE SET state = EXCLUDED.state, last_used_at = EXCLUDED.last_used_at
       ), ${event.ctes} ${event.final}`,
      [
        s.requestId,
        s.accountId,
        s.keyId,
        s.sessionId,
        s.query,
        s.normalizedQuery,
        JSON.stringify(s.filters),
        s.impressions.length,
        s.totalMatches,
        s.tookMs,
        s.createdAt,
        s.impressions.map((i) => i.impressionId),
        s.impressions.map((i) => i.productId),
        s.impressions.map((i) => i.position),
        JSON.stringify(s.session),
        logged ? s.impressions.flatMap((i) => i.features!) : [],
        s.rankingModel ?? null,
        s.interleavedWith ?? null,
        s.impressions.map((i) => i.team ?? null),
        logged ? width : 0,
        s.impressions.map((i) => i.categoryId ?? null),
        ...event.params,
      ],
    );
  }

  pruneSessions(unusedSince: Date, limit: number): Promise<number> {
    // By physical row id: a session a search rewrites meanwhile has a new one and is left alone.
    return pruneRowsBefore(this.db, 'search_sessions', 'last_used_at', unusedSince, limit);
  }
}
