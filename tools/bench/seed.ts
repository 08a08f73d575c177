/**
 * Bulk history for one account, as bench:analytics and bench:worst seed it: searches of ten
 * impressions each, one billable click per search, a conversion for one click in twenty, and
 * request-log rows, spread evenly over a window (generate_series, so a million rows take seconds
 * rather than a million round trips). Tools may seed with SQL; this is its one copy.
 */
import type { Db } from '../../src/store/pg/index.js';

/** Each seeded search shows ten products. */
export const IMPRESSIONS_PER_SEARCH = 10;

export interface ActivityShape {
  /** Put before the md5 seeds of every id, so that two seedings in one database do not collide. */
  idPrefix: string;
  searches: number;
  requestLogRows: number;
  /** The newest rows' time; the rest spread evenly over `windowMs` before it. */
  end: Date;
  windowMs: number;
  /** How many distinct sessions and query texts the searches cycle through. */
  sessions: number;
  queryTexts: number;
  /** A conversion's commission: `from` plus k/1000 for k in [0, steps) chosen by its click's hash (steps 1: always `from`). */
  commission: { from: number; steps: number };
  /** The request log's routes (`METHOD /url`), taken in turn. */
  routes: readonly string[];
  /** Request-log statuses other than 200: row g answers the first whose `every` divides g. */
  errors: readonly { every: number; status: number }[];
}

const whole = (n: number, what: string) => {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`seedActivity: ${what} must be a positive integer, not ${n}`);
  return n;
};

/** Inserts `shape`'s rows for the key's account into `db` (VACUUM ANALYZE on PostgreSQL after); ids derive from md5, so the rows link up. */
export async function seedActivity(db: Db, accountId: string, keyId: string, productIds: readonly string[], shape: ActivityShape): Promise<void> {
  // Counts are written into the SQL (generate_series bounds, moduli); numbers only, checked here.
  const searches = whole(shape.searches, 'searches');
  const logRows = whole(shape.requestLogRows, 'requestLogRows');
  const sessions = whole(shape.sessions, 'sessions');
  const texts = whole(shape.queryTexts, 'queryTexts');
  const statusCase = `CASE ${shape.errors.map((e) => `WHEN g % ${whole(e.every, 'errors.every')} = 0 THEN ${whole(e.status, 'errors.status')} `).join('')}ELSE 200 END`;
  const step = `${shape.windowMs / searches} milliseconds`;
  const p = shape.idPrefix;
  await db.query(
    `INSERT INTO search_requests (id, account_id, key_id, session_id, query, normalized_query, filters, result_count, total_matches, took_ms, created_at)
     SELECT md5($5::text || 'req' || g)::uuid, $1, $2, md5($5::text || 'ses' || (g % ${sessions}))::uuid, 'query ' || (g % ${texts}), 'query ' || (g % ${texts}), '{}', 10, 10, 20,
            $3::timestamptz - g * $4::interval
       FROM generate_series(1, ${searches}) g`,
    [accountId, keyId, shape.end, step, p],
  );
  await db.query(
    `INSERT INTO impressions (id, request_id, account_id, key_id, session_id, product_id, position, created_at)
     SELECT md5($7::text || 'imp' || g)::uuid, md5($7::text || 'req' || r)::uuid, $1, $2, md5($7::text || 'ses' || (r % ${sessions}))::uuid, ($5::uuid[])[1 + (g::bigint * 7919) % $6], 1 + g % 10,
            $3::timestamptz - r * $4::interval
       FROM generate_series(0, ${searches * IMPRESSIONS_PER_SEARCH - 1}) g, LATERAL (SELECT 1 + g / 10 AS r) x`,
    [accountId, keyId, shape.end, step, productIds, productIds.length, p],
  );
  // One billable click per search (its first result), a minute after it was shown.
  await db.query(
    `INSERT INTO clicks (id, impression_id, account_id, request_id, product_id, key_id, source, billable, user_agent_class, destination_url, clicked_at)
     SELECT md5($3::text || 'clk' || r)::uuid, i.id, $1, i.request_id, i.product_id, $2, 'api', true, 'api', NULL, i.created_at + interval '1 minute'
       FROM generate_series(1, ${searches}) r JOIN impressions i ON i.id = md5($3::text || 'imp' || ((r - 1) * 10))::uuid`,
    [accountId, keyId, p],
  );
  await db.query(
    `INSERT INTO conversions (id, account_id, click_id, impression_id, product_id, key_id, order_id, sale_amount, commission_amount, currency, created_at)
     SELECT md5($3::text || 'cnv' || c.id)::uuid, $1, c.id, c.impression_id, c.product_id, $2, 'order-' || c.id, 100,
            $4::numeric + (abs(hashtext(c.id::text)) % $5::int) / 1000.0, 'USD', c.clicked_at + interval '1 hour'
       FROM clicks c WHERE c.account_id = $1 AND abs(hashtext(c.id::text)) % 20 = 0`,
    [accountId, keyId, p, shape.commission.from, whole(shape.commission.steps, 'commission.steps')],
  );
  await db.query(
    `INSERT INTO request_log (account_id, key_id, method, route, status, latency_ms, created_at)
     SELECT $1, $2, split_part(rt, ' ', 1), split_part(rt, ' ', 2), ${statusCase},
            -- On the recorder's grid (2 % steps, three significant digits), as recorded latencies are.
            (SELECT round(v::numeric, (2 - floor(log(v)))::int)::float8
               FROM (SELECT 0.001 * exp(round(ln((5 + (g::bigint * 7919 % 10007) / 100.0) / 0.001) / ln(1.02)) * ln(1.02)) AS v) q),
            $3::timestamptz - g * $4::interval
       FROM generate_series(1, ${logRows}) g, LATERAL (SELECT ($5::text[])[1 + g % ${whole(shape.routes.length, 'routes.length')}] AS rt) x`,
    [accountId, keyId, shape.end, `${shape.windowMs / logRows} milliseconds`, shape.routes],
  );
  if (db.kind === 'postgres') await db.query('VACUUM ANALYZE');
}
