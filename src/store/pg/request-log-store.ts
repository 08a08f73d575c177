import type { RequestLogEntry, RequestLogStore } from '../../core/analytics/ports.js';
import type { Db } from './db.js';

export class PgRequestLogStore implements RequestLogStore {
  constructor(private readonly db: Db) {}

  async insertMany(entries: readonly RequestLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One statement per batch: unnest keeps it a single round trip whatever the batch size.
    await this.db.query(
      `INSERT INTO request_log (account_id, key_id, method, route, status, latency_ms, created_at)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int2[], $6::float8[], $7::timestamptz[])`,
      [
        entries.map((e) => e.accountId),
        entries.map((e) => e.keyId),
        entries.map((e) => e.method),
        entries.map((e) => e.route),
        entries.map((e) => e.status),
        entries.map((e) => e.latencyMs),
        entries.map((e) => e.createdAt.toISOString()),
      ],
    );
  }

  async pruneBefore(cutoff: Date, limit: number): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM request_log WHERE ctid = ANY (ARRAY(SELECT ctid FROM request_log WHERE created_at < $1 LIMIT $2)) RETURNING 1
       ) SELECT count(*)::int AS n FROM gone`,
      [cutoff, limit],
    );
    return rows[0]?.n ?? 0;
  }
}
