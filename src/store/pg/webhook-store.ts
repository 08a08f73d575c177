import { newId } from '../../core/ids.js';
import type { PageCursor } from '../../core/shared-ports.js';
import type { EventType } from '../../core/webhooks/events.js';
import type {
  AttemptRecord,
  ClaimedDelivery,
  CompletedAttempt,
  DeliveryQueue,
  DeliveryStatus,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookRepository,
  WebhookStore,
} from '../../core/webhooks/ports.js';
import type { Db, Queryable } from './db.js';

interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: EventType[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: 'manual' | 'failing' | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const ENDPOINT_COLUMNS = `id, account_id, url, events, description, status, disabled_reason, secret, previous_secret,
  previous_secret_expires_at, failing_since, created_at, updated_at`;

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  events: r.events,
  description: r.description,
  status: r.status,
  disabledReason: r.disabled_reason,
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  failingSince: r.failing_since,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  last_response_body: string | null;
  created_at: Date;
}

const DELIVERY_SELECT = `SELECT d.id, d.endpoint_id, d.event_id, e.type AS event_type, d.status, d.attempt_count, d.next_attempt_at,
  d.last_attempt_at, d.last_status_code, d.last_duration_ms, d.last_error, d.last_response_body, d.created_at
  FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id`;

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attemptCount: r.attempt_count,
  nextAttemptAt: r.next_attempt_at,
  lastAttemptAt: r.last_attempt_at,
  lastStatusCode: r.last_status_code,
  lastDurationMs: r.last_duration_ms,
  lastError: r.last_error,
  lastResponseBody: r.last_response_body,
  createdAt: r.created_at,
});

/** $1…$11 of both insertEndpoint and saveEndpoint: the endpoint's key, then the columns a save rewrites. */
const endpointValues = (e: WebhookEndpoint): unknown[] => [
  e.id,
  e.accountId,
  e.url,
  e.events,
  e.description,
  e.status,
  e.disabledReason,
  e.secret,
  e.previousSecret,
  e.previousSecretExpiresAt,
  e.failingSince,
];

class PgWebhookRepository implements WebhookRepository {
  constructor(protected readonly q: Queryable) {}

  async countEndpoints(accountId: string): Promise<number> {
    const rows = await this.q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1', [accountId]);
    return rows[0]?.n ?? 0;
  }

  async findEndpoint(accountId: string, id: string): Promise<WebhookEndpoint | null> {
    const rows = await this.q.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows[0] ? toEndpoint(rows[0]) : null;
  }

  async insertEndpoint(e: WebhookEndpoint): Promise<void> {
    await this.q.query(`INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
      ...endpointValues(e),
      e.createdAt,
      e.updatedAt,
    ]);
  }

  async saveEndpoint(e: WebhookEndpoint): Promise<void> {
    await this.q.query(
      `UPDATE webhook_endpoints SET url = $3, events = $4, description = $5, status = $6, disabled_reason = $7, secret = $8,
         previous_secret = $9, previous_secret_expires_at = $10, failing_since = $11, updated_at = $12
       WHERE id = $1 AND account_id = $2`,
      [...endpointValues(e), e.updatedAt],
    );
    if (e.status === 'disabled') await parkDeliveries(this.q, e.id);
    else await this.q.query(UNPARK, [e.id, e.updatedAt]);
  }
}

// A disabled endpoint's waiting deliveries are parked (no next_attempt_at), so claims, which range
// over due times, never rescan them; re-enabling makes them due at once.
const PARK = `UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at IS NOT NULL`;
const UNPARK = `UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at IS NULL`;
const parkDeliveries = (q: Queryable, endpointId: string) => q.query(PARK, [endpointId]);

interface ClaimRow {
  id: string;
  lease_token: string;
  event_id: string;
  payload: string;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  attempt_count: number;
  next_attempt_at: Date | null;
}

// Due pending deliveries, plus deliveries whose worker died holding the lease. SKIP LOCKED lets
// any number of workers claim side by side without waiting on each other or taking the same row.
const CLAIM = `
WITH due_pending AS (
  SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.status = 'enabled'
  WHERE d.status = 'pending' AND d.next_attempt_at <= $1 ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED
), lease_expired AS (
  SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.status = 'enabled'
  WHERE d.status = 'delivering' AND d.lease_until <= $1 ORDER BY d.lease_until LIMIT $2 FOR UPDATE OF d SKIP LOCKED
), picked AS (
  SELECT id FROM lease_expired UNION ALL SELECT id FROM due_pending LIMIT $2
), claimed AS (
  UPDATE webhook_deliveries d SET status = 'delivering', lease_until = $3, lease_token = gen_random_uuid()
  FROM picked WHERE d.id = picked.id
  RETURNING d.id, d.lease_token, d.event_id, d.endpoint_id, d.attempt_count, d.next_attempt_at
)
SELECT c.id, c.lease_token, c.event_id, e.payload, c.endpoint_id, w.url, w.secret, w.previous_secret,
  w.previous_secret_expires_at, c.attempt_count, c.next_attempt_at
FROM claimed c JOIN webhook_events e ON e.id = c.event_id JOIN webhook_endpoints w ON w.id = c.endpoint_id`;

// One statement per attempt: move the delivery
// on (only while this worker still holds the lease), record the attempt, and update the endpoint's
// failure run. A failure starts the run at its first failed attempt and disables the endpoint once
// the run is old enough; a success ends it. Successes on a healthy endpoint touch no endpoint row,
// so parallel deliveries to one endpoint do not queue on its lock.
const COMPLETE = `
WITH moved AS (
  UPDATE webhook_deliveries SET status = $3, attempt_count = $4, next_attempt_at = $5, lease_until = NULL, lease_token = NULL,
    last_attempt_at = $6, last_status_code = $7, last_duration_ms = $8, last_error = $9, last_response_body = $10
  WHERE id = $1 AND lease_token = $2
  RETURNING id, endpoint_id
), attempt AS (
  INSERT INTO webhook_attempts (id, delivery_id, attempt, started_at, status_code, duration_ms, error, response_body)
  SELECT $11, id, $4, $6, $7, $8, $9, $10 FROM moved
), health AS (
  UPDATE webhook_endpoints w SET
    failing_since = CASE WHEN $12::boolean THEN NULL ELSE COALESCE(w.failing_since, $6) END,
    status = CASE WHEN NOT $12::boolean AND COALESCE(w.failing_since, $6) <= $13 THEN 'disabled' ELSE w.status END,
    disabled_reason = CASE WHEN NOT $12::boolean AND COALESCE(w.failing_since, $6) <= $13 THEN 'failing' ELSE w.disabled_reason END,
    updated_at = CASE WHEN NOT $12::boolean AND COALESCE(w.failing_since, $6) <= $13 THEN $6 ELSE w.updated_at END
  FROM moved WHERE w.id = moved.endpoint_id AND w.status = 'enabled' AND (NOT $12::boolean OR w.failing_since IS NOT NULL)
  RETURNING w.status
)
SELECT (SELECT count(*)::int FROM moved) AS n,
  EXISTS (SELECT 1 FROM health WHERE status = 'disabled')
    OR EXISTS (SELECT 1 FROM webhook_endpoints w JOIN moved ON w.id = moved.endpoint_id WHERE w.status = 'disabled') AS disabled`;

// Finished deliveries whose last attempt is older than the cutoff, and the parked deliveries of
// disabled endpoints created before it; never one pending on an enabled endpoint or under lease.
// Rows go by physical row id: one a worker or a manual retry updates meanwhile has a new one and
// is left alone. Attempts go with their delivery (ON DELETE CASCADE). $1 cutoff, $2 batch size;
// each part takes at most $2, so a batch short of $2 means both are exhausted.
const PRUNE_DELIVERIES = `
WITH gone AS (
  DELETE FROM webhook_deliveries WHERE ctid = ANY (ARRAY(
    (SELECT ctid FROM webhook_deliveries
      WHERE status IN ('succeeded', 'failed') AND created_at < $1 AND COALESCE(last_attempt_at, created_at) < $1 LIMIT $2)
    UNION ALL
    (SELECT d.ctid FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.status = 'disabled'
      WHERE d.status = 'pending' AND d.next_attempt_at IS NULL AND d.created_at < $1 LIMIT $2)
  )) RETURNING 1
) SELECT count(*)::int AS n FROM gone`;

// Events older than the cutoff with no delivery left (pruned, or their endpoint deleted). Nothing
// adds a delivery to an existing event, so the cascade to deliveries never finds one. The check is
// a scalar subquery, one index probe per old event, on purpose: as NOT EXISTS the planner may hash
// every delivery in the table to find a batch of orphans (docs/deployment.md, "Retention").
const PRUNE_EVENTS = `
WITH gone AS (
  DELETE FROM webhook_events WHERE ctid = ANY (ARRAY(
    SELECT e.ctid FROM webhook_events e
    WHERE e.created_at < $1 AND (SELECT d.id FROM webhook_deliveries d WHERE d.event_id = e.id LIMIT 1) IS NULL LIMIT $2
  )) RETURNING 1
) SELECT count(*)::int AS n FROM gone`;

export class PgWebhookStore extends PgWebhookRepository implements WebhookStore, DeliveryQueue {
  constructor(private readonly db: Db) {
    super(db);
  }

  inAccountTransaction<T>(accountId: string, fn: (repo: WebhookRepository) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      // Serialises endpoint changes per account, so the 20-endpoint limit holds under races.
      await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      return fn(new PgWebhookRepository(tx));
    });
  }

  async listEndpoints(accountId: string, limit: number, after: PageCursor | null): Promise<WebhookEndpoint[]> {
    const rows = await this.db.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [accountId, after?.createdAt ?? null, after?.id ?? null, limit],
    );
    return rows.map(toEndpoint);
  }

  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM webhook_endpoints WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, id]);
    return rows.length > 0;
  }

  async listDeliveries(
    accountId: string,
    endpointId: string,
    status: DeliveryStatus | null,
    limit: number,
    after: PageCursor | null,
  ): Promise<WebhookDelivery[]> {
    const rows = await this.db.query<DeliveryRow>(
      `${DELIVERY_SELECT} WHERE d.account_id = $1 AND d.endpoint_id = $2 AND ($3::text IS NULL OR d.status = $3)
         AND ($4::timestamptz IS NULL OR (d.created_at, d.id) < ($4, $5::uuid))
       ORDER BY d.created_at DESC, d.id DESC LIMIT $6`,
      [accountId, endpointId, status, after?.createdAt ?? null, after?.id ?? null, limit],
    );
    return rows.map(toDelivery);
  }

  async findDelivery(accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const rows = await this.db.query<DeliveryRow>(`${DELIVERY_SELECT} WHERE d.account_id = $1 AND d.endpoint_id = $2 AND d.id = $3`, [
      accountId,
      endpointId,
      deliveryId,
    ]);
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async requeueDelivery(accountId: string, endpointId: string, deliveryId: string, now: Date): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $4, lease_until = NULL, lease_token = NULL
       WHERE account_id = $1 AND endpoint_id = $2 AND id = $3 AND status <> 'delivering' RETURNING id`,
      [accountId, endpointId, deliveryId, now],
    );
    return rows.length > 0;
  }

  async enqueueForEndpoint(endpoint: WebhookEndpoint, event: { id: string; type: EventType; payload: string; createdAt: Date }): Promise<WebhookDelivery> {
    const deliveryId = newId();
    await this.db.transaction(async (tx) => {
      await tx.query('INSERT INTO webhook_events (id, account_id, type, payload, created_at) VALUES ($1, $2, $3, $4, $5)', [
        event.id,
        endpoint.accountId,
        event.type,
        event.payload,
        event.createdAt,
      ]);
      await tx.query(
        `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, status, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, 'pending', $5, $5)`,
        [deliveryId, event.id, endpoint.id, endpoint.accountId, event.createdAt],
      );
    });
    const delivery = await this.findDelivery(endpoint.accountId, endpoint.id, deliveryId);
    if (delivery === null) throw new Error('test delivery vanished after insert');
    return delivery;
  }

  async pruneDeliveries(before: Date, limit: number): Promise<number> {
    const rows = await this.db.query<{ n: number }>(PRUNE_DELIVERIES, [before, limit]);
    return rows[0]?.n ?? 0;
  }

  async queueDepth(now: Date): Promise<{ pending: number; oldestDueSeconds: number }> {
    // Each part reads one partial index (webhook_deliveries_due, webhook_deliveries_leased).
    const [row] = await this.db.query<{ waiting: string; delivering: string; oldest: Date | null }>(
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL) AS waiting,
              (SELECT count(*) FROM webhook_deliveries WHERE status = 'delivering') AS delivering,
              (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1) AS oldest`,
      [now],
    );
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
    return {
      pending: Number(row?.waiting ?? 0) + Number(row?.delivering ?? 0),
      oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
    };
  }

  async pruneEvents(before: Date, limit: number): Promise<number> {
    // The planner cannot know how many old events are orphans, so it costs the statement as a scan
    // of all of them: past jit_above_cost, and JIT compiling would cost far more than the work.
    const rows = await this.db.transaction(async (tx) => {
      await tx.query('SET LOCAL jit = off');
      return tx.query<{ n: number }>(PRUNE_EVENTS, [before, limit]);
    });
    return rows[0]?.n ?? 0;
  }

  async claim(now: Date, limit: number, leaseUntil: Date): Promise<ClaimedDelivery[]> {
    const rows = await this.db.query<ClaimRow>(CLAIM, [now, limit, leaseUntil]);
    return rows.map((r) => ({
      id: r.id,
      leaseToken: r.lease_token,
      eventId: r.event_id,
      payload: r.payload,
      endpointId: r.endpoint_id,
      url: r.url,
      secrets:
        r.previous_secret !== null && r.previous_secret_expires_at !== null && r.previous_secret_expires_at > now ? [r.secret, r.previous_secret] : [r.secret],
      attemptCount: r.attempt_count,
      dueAt: r.next_attempt_at ?? now,
    }));
  }

  async complete(claim: ClaimedDelivery, attempt: AttemptRecord, disableIfFailingSince: Date): Promise<boolean> {
    const [kept] = await this.completeMany([{ claim, attempt, disableIfFailingSince }]);
    return kept ?? false;
  }

  completeMany(items: readonly CompletedAttempt[]): Promise<boolean[]> {
    // One commit for the batch: commits (fsync), not statements, bound a worker's throughput.
    return this.db.transaction(async (tx) => {
      const results: boolean[] = [];
      for (const { claim, attempt: a, disableIfFailingSince } of items) {
        const next = a.next;
        const rows = await tx.query<{ n: number; disabled: boolean }>(COMPLETE, [
          claim.id,
          claim.leaseToken,
          next.status,
          claim.attemptCount + 1,
          next.status === 'pending' ? next.nextAttemptAt : null,
          a.startedAt,
          a.statusCode,
          a.durationMs,
          a.error,
          a.responseBody,
          newId(),
          a.ok,
          disableIfFailingSince,
        ]);
        // Disabled now or earlier (by another item of this batch, or a PATCH while this attempt was in flight):
        // park after the statement above, since one statement must not update the same delivery twice.
        if (rows[0]?.disabled) await parkDeliveries(tx, claim.endpointId);
        results.push((rows[0]?.n ?? 0) > 0);
      }
      return results;
    });
  }
}
