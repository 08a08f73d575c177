import { newId } from '../../core/ids.js';
import { type EventType, envelope } from '../../core/webhooks/events.js';
import type { Queryable } from './db.js';

export interface OutboxEvent {
  accountId: string;
  type: EventType;
  /** The event's `data`, built with core/webhooks/events.ts `eventData.<type>(…)` (prefixed ids). */
  data: Record<string, unknown>;
  createdAt: Date;
  /** Defaults to a new UUID; the envelope carries it as `evt_…` and every attempt as `webhook-id`. */
  id?: string;
}

// Every stored payload starts with the account's livemode: withLivemode() in core/webhooks/events.ts, in SQL.
const LIVEMODE_PREFIX = (account: string) => `'{"livemode":' || (SELECT livemode::text FROM accounts WHERE id = ${account}) || ','`;

// One round trip: the event row is written only when some enabled endpoint of the account
// subscribes to the type (no outbox growth for accounts without webhooks), and one pending,
// immediately due delivery per such endpoint. Parameters: $1 event id, $2 account, $3 type,
// $4 payload, $5 time. Split in two so a caller can fold it into a statement of its own.
const APPEND_CTES = `
targets AS (
  SELECT id FROM webhook_endpoints WHERE account_id = $2 AND status = 'enabled' AND $3 = ANY (events)
), event AS (
  INSERT INTO webhook_events (id, account_id, type, payload, created_at)
  SELECT $1, $2, $3, ${LIVEMODE_PREFIX('$2')} || substr($4::text, 2), $5 WHERE EXISTS (SELECT 1 FROM targets)
  RETURNING id
)`;
const APPEND_FINAL = `
INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, status, next_attempt_at, created_at)
SELECT gen_random_uuid(), event.id, targets.id, $2, 'pending', $5, $5 FROM event CROSS JOIN targets`;
const APPEND = `WITH ${APPEND_CTES} ${APPEND_FINAL}`;

/** `$n` placeholders moved up by `offset` (`$1` → `$(1 + offset)`), whatever their number of digits. */
export const shiftParams = (sql: string, offset: number): string => sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);

/**
 * The append as the tail of a caller's own `WITH …` statement, its parameters numbered from
 * `$first`: `WITH a AS (INSERT …), ${cte} ${final}` with `params` appended to the caller's.
 * One statement is atomic, so the event still commits or rolls back with the caller's writes.
 */
export function appendEventClause(first: number, event: OutboxEvent): { ctes: string; final: string; params: unknown[] } {
  const renumber = (sql: string) => shiftParams(sql, first - 1);
  const eventId = event.id ?? newId();
  return {
    ctes: renumber(APPEND_CTES),
    final: renumber(APPEND_FINAL),
    params: [eventId, event.accountId, event.type, envelope(eventId, event.type, event.createdAt, event.data), event.createdAt],
  };
}

/**
 * The transactional outbox. Call it with the transaction that records the fact (search, click,
 * conversion, feedback): the event and its deliveries commit or roll back with it, so a
 * subscriber hears of exactly the facts that exist. Returns the event id and how many
 * deliveries were queued (0: nobody subscribes, and nothing was written).
 *
 *   await db.transaction(async (tx) => {
 *     await tx.query('INSERT INTO clicks …');
 *     await appendEvent(tx, { accountId, type: 'click', data: eventData.click({ … }), createdAt: now });
 *   });
 */
export async function appendEvent(tx: Queryable, event: OutboxEvent): Promise<{ eventId: string; deliveries: number }> {
  const eventId = event.id ?? newId();
  const payload = envelope(eventId, event.type, event.createdAt, event.data);
  const rows = await tx.query(`${APPEND} RETURNING 1`, [eventId, event.accountId, event.type, payload, event.createdAt]);
  return { eventId, deliveries: rows.length };
}

// appendEvent for many events at once (a group of clicks): the same rule per event, one round
// trip for all. Parameters are parallel arrays: $1 ids, $2 accounts, $3 types, $4 payloads, $5 times.
const APPEND_MANY = `
WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[]) AS e(id, account_id, type, payload, created_at)
), targets AS (
  SELECT e.id AS event_id, w.id AS endpoint_id, e.account_id, e.created_at
  FROM input e JOIN webhook_endpoints w ON w.account_id = e.account_id AND w.status = 'enabled' AND e.type = ANY (w.events)
), event AS (
  INSERT INTO webhook_events (id, account_id, type, payload, created_at)
  SELECT e.id, e.account_id, e.type, ${LIVEMODE_PREFIX('e.account_id')} || substr(e.payload, 2), e.created_at FROM input e WHERE e.id IN (SELECT event_id FROM targets)
  RETURNING id
)
INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, status, next_attempt_at, created_at)
SELECT gen_random_uuid(), t.event_id, t.endpoint_id, t.account_id, 'pending', t.created_at, t.created_at FROM targets t JOIN event ON event.id = t.event_id
RETURNING 1`;

/**
 * appendEvent for several events in one statement, with the same transaction rule: call it with
 * the transaction that records the facts. Returns how many deliveries were queued in all.
 */
export async function appendEvents(tx: Queryable, events: readonly OutboxEvent[]): Promise<{ deliveries: number }> {
  if (events.length === 0) return { deliveries: 0 };
  const ids = events.map((e) => e.id ?? newId());
  const rows = await tx.query(APPEND_MANY, [
    ids,
    events.map((e) => e.accountId),
    events.map((e) => e.type),
    events.map((e, i) => envelope(ids[i]!, e.type, e.createdAt, e.data)),
    events.map((e) => e.createdAt.toISOString()),
  ]);
  return { deliveries: rows.length };
}
