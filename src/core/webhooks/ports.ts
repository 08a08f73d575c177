/** Webhook endpoints, the outbox and the delivery queue (src/store/pg/webhook-store.ts). */
import type { PageCursor } from '../shared-ports.js';
import type { EventType } from './event-types.js';
import type { NextStep } from './retry-policy.js';

type WebhookStatus = 'enabled' | 'disabled';

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed';

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: EventType[];
  description: string | null;
  status: WebhookStatus;
  /** `failing` when the worker disabled it after 5 days of failures; `manual` when a caller did. */
  disabledReason: 'manual' | 'failing' | null;
  /** `whsec_…`, kept as issued: signing needs the key itself. Never logged. */
  secret: string;
  /** The secret before the last rotation; it signs alongside `secret` until it expires. */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** Start of the current run of failed attempts; null after any success. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  lastResponseBody: string | null;
  createdAt: Date;
}

/** Endpoint reads and writes inside one account's serialised transaction (limit checks). */
export interface WebhookRepository {
  countEndpoints(accountId: string): Promise<number>;
  findEndpoint(accountId: string, id: string): Promise<WebhookEndpoint | null>;
  insertEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  /** Writes every mutable field of the endpoint. */
  saveEndpoint(endpoint: WebhookEndpoint): Promise<void>;
}

export interface WebhookStore extends WebhookRepository {
  inAccountTransaction<T>(accountId: string, fn: (repo: WebhookRepository) => Promise<T>): Promise<T>;
  listEndpoints(accountId: string, limit: number, after: PageCursor | null): Promise<WebhookEndpoint[]>;
  /** False when there was no such endpoint. Its deliveries go with it. */
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;
  listDeliveries(accountId: string, endpointId: string, status: DeliveryStatus | null, limit: number, after: PageCursor | null): Promise<WebhookDelivery[]>;
  findDelivery(accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery | null>;
  /** Makes a delivery due now (a manual retry or replay); false when a worker holds it. */
  requeueDelivery(accountId: string, endpointId: string, deliveryId: string, now: Date): Promise<boolean>;
  /** Writes an event and one delivery of it to this endpoint only (test events). */
  enqueueForEndpoint(endpoint: WebhookEndpoint, event: { id: string; type: EventType; payload: string; createdAt: Date }): Promise<WebhookDelivery>;
  /**
   * Deletes up to `limit` deliveries (with their attempts) that are finished and last tried before
   * `before`, or parked on a disabled endpoint and created before it; never a delivery that is
   * due or leased. Returns how many.
   */
  pruneDeliveries(before: Date, limit: number): Promise<number>;
  /** Deletes up to `limit` events created before `before` that have no delivery left; returns how many. */
  pruneEvents(before: Date, limit: number): Promise<number>;
  /**
   * Deliveries waiting to be sent (pending and due or not, or held by a worker; not those parked
   * on a disabled endpoint), and how long the oldest due one has waited at `now`, in seconds.
   */
  queueDepth(now: Date): Promise<{ pending: number; oldestDueSeconds: number }>;
}

/** A delivery a worker holds under lease, with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  leaseToken: string;
  eventId: string;
  payload: string;
  endpointId: string;
  url: string;
  secrets: string[];
  /** Attempts made before this one. */
  attemptCount: number;
  /** When it fell due (its lag is the time from here to the attempt). */
  dueAt: Date;
}

export interface AttemptRecord {
  startedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  ok: boolean;
  next: NextStep;
}

export interface CompletedAttempt {
  claim: ClaimedDelivery;
  attempt: AttemptRecord;
  disableIfFailingSince: Date;
}

/** The worker's side of the outbox: SKIP LOCKED claims under a lease. */
export interface DeliveryQueue {
  /** Claims up to `limit` due deliveries of enabled endpoints, leasing them until `leaseUntil`. */
  claim(now: Date, limit: number, leaseUntil: Date): Promise<ClaimedDelivery[]>;
  /**
   * Records the attempt and moves the delivery on, in one transaction; updates the endpoint's
   * failure run and disables it when `disableIfFailingSince` is reached. False when the lease
   * was lost (another worker took over): nothing is written.
   */
  complete(claim: ClaimedDelivery, attempt: AttemptRecord, disableIfFailingSince: Date): Promise<boolean>;
  /** complete() for several deliveries in one transaction (one commit); a result per item. */
  completeMany(items: readonly CompletedAttempt[]): Promise<boolean[]>;
}
