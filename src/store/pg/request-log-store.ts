import type { RequestLogEntry, RequestLogStore } from '../../core/analytics/ports.js';
import type { Db } from './db.js';
import { pruneRowsBefore } from './prune.js';

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

  pruneBefore(cutoff: Date, limit: number): Promise<number> {
    return pruneRowsBefore(this.db, 'request_log', 'created_at', cutoff, limit);
  }
}
