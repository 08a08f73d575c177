import type { RateLimitStore } from '../../core/rate-limit/ports.js';
import type { Db } from './db.js';
import { GroupCommit } from './group-commit.js';

interface Consume {
  bucket: string;
  nowMs: number;
  incrementMs: number;
  windowMs: number;
}

export class PgRateLimitStore implements RateLimitStore {
  // Every request consumes, and the requests of one key all want the same row: one at a time they
  // would queue on its lock, a commit each. Grouped, the consumes that arrive while a batch is at
  // the database go in one call of rate_limit_consume (migration 011), which applies them in
  // arrival order with the same GCRA arithmetic and locks each bucket once, in byte order.
  private readonly batches = new GroupCommit<Consume, { allowed: boolean; tatMs: number }>({
    run: (items) => this.consumeAll(items),
    maxInFlight: 2,
  });

  constructor(private readonly db: Db) {}

  consume(bucket: string, nowMs: number, incrementMs: number, windowMs: number): Promise<{ allowed: boolean; tatMs: number }> {
    return this.batches.submit({ bucket, nowMs, incrementMs, windowMs });
  }

  async peek(bucket: string): Promise<number | null> {
    const rows = await this.db.query<{ tat_ms: number }>('SELECT tat_ms FROM rate_limits WHERE bucket = $1', [bucket]);
    return rows[0]?.tat_ms ?? null;
  }

  async pruneRecovered(prefix: string, cutoff: Date, limit: number): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM rate_limits WHERE bucket IN (SELECT bucket FROM rate_limits WHERE starts_with(bucket, $1) AND tat_ms < $2 LIMIT $3) RETURNING 1
       ) SELECT count(*)::int AS n FROM gone`,
      [prefix, cutoff.getTime(), limit],
    );
    return rows[0]?.n ?? 0;
  }

  private async consumeAll(items: readonly Consume[]): Promise<{ allowed: boolean; tatMs: number }[]> {
    if (items.length === 1) return [await this.consumeOne(items[0]!)];
    const rows = await this.db.query<{ item: number; allowed: boolean; tat: number }>(
      'SELECT item, allowed, tat FROM rate_limit_consume($1::text[], $2::float8[], $3::float8[], $4::float8[])',
      [items.map((c) => c.bucket), items.map((c) => c.nowMs), items.map((c) => c.incrementMs), items.map((c) => c.windowMs)],
    );
    if (rows.length !== items.length) throw new Error(`rate_limit_consume answered ${rows.length} rows for ${items.length} consumes`);
    const results: { allowed: boolean; tatMs: number }[] = new Array(items.length);
    for (const r of rows) results[r.item - 1] = { allowed: r.allowed, tatMs: r.tat };
    return results;
  }

  /**
   * A consume that arrived alone (most of them, unless the process is busy): the same GCRA step
   * as rate_limit_consume, as one upsert instead of a PL/pgSQL call (a third of its cost on
   * PGlite). The conflict locks the row; the update happens only when the step is allowed, so no
   * row back means refused, and the refusal answers the bucket's tat as it stands.
   */
  private async consumeOne(c: Consume): Promise<{ allowed: boolean; tatMs: number }> {
    const rows = await this.db.query<{ tat: number }>(
      `INSERT INTO rate_limits AS r (bucket, tat_ms) VALUES ($1, $2::float8 + $3::float8)
       ON CONFLICT (bucket) DO UPDATE SET tat_ms = GREATEST(r.tat_ms, $2::float8) + $3::float8
         WHERE GREATEST(r.tat_ms, $2::float8) + $3::float8 - $2::float8 <= $4::float8
       RETURNING r.tat_ms AS tat`,
      [c.bucket, c.nowMs, c.incrementMs, c.windowMs],
    );
    if (rows[0] !== undefined) return { allowed: true, tatMs: rows[0].tat };
    return { allowed: false, tatMs: (await this.peek(c.bucket)) ?? c.nowMs };
  }
}
