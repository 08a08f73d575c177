import type { Queryable } from './db.js';

/**
 * One batch of retention: deletes at most `limit` rows of `table` whose `column` is before
 * `cutoff` and returns how many went. Rows are picked by physical row id (ctid), so a row
 * rewritten after the pick has a new one and is left alone. `table` and `column` are the
 * caller's fixed texts, never input.
 */
export async function pruneRowsBefore(q: Queryable, table: string, column: string, cutoff: Date, limit: number): Promise<number> {
  const rows = await q.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT $2)) RETURNING 1
     ) SELECT count(*)::int AS n FROM gone`,
    [cutoff, limit],
  );
  return rows[0]?.n ?? 0;
}
