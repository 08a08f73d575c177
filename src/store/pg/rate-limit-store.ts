import type { RateLimitStore } from '../../core/ports.js';
import type { Db } from './db.js';

export class PgRateLimitStore implements RateLimitStore {
  constructor(private readonly db: Db) {}

  async consume(bucket: string, nowMs: number, incrementMs: number, windowMs: number): Promise<{ allowed: boolean; tatMs: number }> {
    // ON CONFLICT DO UPDATE locks the row and re-checks the WHERE against the latest committed
    // value, so concurrent requests from any process serialise on the bucket: one budget.
    const rows = await this.db.query<{ tat_ms: number }>(
      `INSERT INTO rate_limits AS r (bucket, tat_ms) VALUES ($1, $2::float8 + $3::float8)
       ON CONFLICT (bucket) DO UPDATE SET tat_ms = GREATEST(r.tat_ms, $2::float8) + $3::float8
         WHERE GREATEST(r.tat_ms, $2::float8) + $3::float8 - $2::float8 <= $4::float8
       RETURNING tat_ms`,
      [bucket, nowMs, incrementMs, windowMs],
    );
    if (rows[0]) return { allowed: true, tatMs: rows[0].tat_ms };
    const current = await this.db.query<{ tat_ms: number }>('SELECT tat_ms FROM rate_limits WHERE bucket = $1', [bucket]);
    return { allowed: false, tatMs: current[0]?.tat_ms ?? nowMs };
  }

  async peek(bucket: string): Promise<number | null> {
    const rows = await this.db.query<{ tat_ms: number }>('SELECT tat_ms FROM rate_limits WHERE bucket = $1', [bucket]);
    return rows[0]?.tat_ms ?? null;
  }
}
