import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, parseId, prefixedId } from '../ids.js';
import { decodeCursor, encodeCursor } from '../keys/cursor.js';
import type {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveryPage,
  DeliveryRecord,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RotatedSecret,
  TestEventBody,
  TestEventResult,
  UpdateWebhookBody,
  WebhookPage,
  WebhookRecord,
} from '../schemas/webhooks.js';
import type { Principal } from '../shared-ports.js';
import { type EventType, envelope, eventData, withLivemode } from './events.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookRepository, WebhookStore } from './ports.js';
import { generateWebhookSecret } from './signing.js';
import { checkWebhookUrl, type HostResolver } from './url-guard.js';

const MAX_WEBHOOKS_PER_ACCOUNT = 20;
/** How long the secret before a rotation keeps signing (docs/webhooks.md). */
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface WebhookServiceDeps {
  store: WebhookStore;
  clock: Clock;
  resolver: HostResolver;
  /** AISLE_WEBHOOK_ALLOW_PRIVATE: http and private addresses allowed (local development, tests). */
  allowPrivate: boolean;
}

const toWebhookRecord = (e: WebhookEndpoint, now: Date): WebhookRecord => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  status: e.status,
  disabled_reason: e.status === 'disabled' ? e.disabledReason : null,
  failing_since: e.failingSince?.toISOString() ?? null,
  previous_secret_expires_at: e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > now ? e.previousSecretExpiresAt.toISOString() : null,
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
});

const toDeliveryRecord = (d: WebhookDelivery): DeliveryRecord => ({
  id: d.id,
  webhook_id: d.endpointId,
  event_id: prefixedId('event', d.eventId),
  event_type: d.eventType,
  status: d.status,
  attempts: d.attemptCount,
  next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
  last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
  last_status_code: d.lastStatusCode,
  last_duration_ms: d.lastDurationMs,
  last_error: d.lastError,
  last_response_body: d.lastResponseBody,
  created_at: d.createdAt.toISOString(),
});

const SAMPLE_UUID = '00000000-0000-4000-8000-000000000000';
const sampleData = (type: EventType): Record<string, unknown> => {
  const id = SAMPLE_UUID;
  switch (type) {
    case 'search':
      return eventData.search({ requestId: id, sessionId: id, query: 'waterproof trail running shoes', productIds: [id] });
    case 'click':
      return eventData.click({ clickId: id, impressionId: id, productId: id, requestId: id });
    case 'conversion':
      return eventData.conversion({
        conversionId: id,
        clickId: id,
        impressionId: id,
        productId: id,
        orderId: 'test-order',
        saleAmount: 129.99,
        commissionAmount: 6.5,
        currency: 'USD',
      });
    case 'feedback':
      return eventData.feedback({ feedbackId: id, requestId: id, productId: id, relevant: true, reason: null });
  }
};

/** Webhook subscriptions of one account (docs/webhooks.md). Every method is scoped to the principal's account. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /** 422 webhook_url_not_allowed (SSRF guard), 409 webhook_limit_reached past 20. The secret is returned once. */
  async create(principal: Principal, body: CreateWebhookBody): Promise<CreatedWebhook> {
    await this.assertUrlAllowed(body.url);
    const now = this.deps.clock.now();
    const endpoint: WebhookEndpoint = {
      id: newId(),
      accountId: principal.accountId,
      url: body.url,
      events: [...body.events],
      description: body.description ?? null,
      status: 'enabled',
      disabledReason: null,
      secret: generateWebhookSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.inAccountTransaction(principal.accountId, async (repo) => {
      if ((await repo.countEndpoints(principal.accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw new AppError('webhook_limit_reached', `An account can hold at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete unused ones first.`);
      }
      await repo.insertEndpoint(endpoint);
    });
    return { ...toWebhookRecord(endpoint, now), secret: endpoint.secret };
  }

  async list(principal: Principal, query: ListWebhooksQuery): Promise<WebhookPage> {
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await this.deps.store.listEndpoints(principal.accountId, query.limit + 1, after);
    const now = this.deps.clock.now();
    return page(rows, query.limit, (e) => toWebhookRecord(e, now));
  }

  /** 404 for unknown ids and other accounts' webhooks alike. */
  async get(principal: Principal, rawId: string): Promise<WebhookRecord> {
    return toWebhookRecord(await this.find(this.deps.store, principal, rawId), this.deps.clock.now());
  }

  /** A changed URL passes the SSRF guard again. Re-enabling clears the failure run. */
  async update(principal: Principal, rawId: string, body: UpdateWebhookBody): Promise<WebhookRecord> {
    if (body.url !== undefined) await this.assertUrlAllowed(body.url);
    return this.deps.store.inAccountTransaction(principal.accountId, async (repo) => {
      const now = this.deps.clock.now();
      const current = await this.find(repo, principal, rawId);
      const next: WebhookEndpoint = {
        ...current,
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.events !== undefined ? { events: [...body.events] } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        updatedAt: now,
      };
      if (body.status === 'disabled' && current.status === 'enabled') Object.assign(next, { status: 'disabled', disabledReason: 'manual' });
      if (body.status === 'enabled' && current.status === 'disabled') Object.assign(next, { status: 'enabled', disabledReason: null, failingSince: null });
      await repo.saveEndpoint(next);
      return toWebhookRecord(next, now);
    });
  }

  async remove(principal: Principal, rawId: string): Promise<void> {
    const id = parseId('webhook', rawId);
    if (id === null || !(await this.deps.store.deleteEndpoint(principal.accountId, id))) throw notFound(rawId);
  }

  /**
   * New secret; the current one keeps signing alongside it for 24 h. A second rotation within
   * the overlap drops the oldest secret (only the two newest ever sign).
   */
  async rotateSecret(principal: Principal, rawId: string): Promise<RotatedSecret> {
    return this.deps.store.inAccountTransaction(principal.accountId, async (repo) => {
      const now = this.deps.clock.now();
      const current = await this.find(repo, principal, rawId);
      const expires = new Date(now.getTime() + ROTATION_OVERLAP_MS);
      const next: WebhookEndpoint = {
        ...current,
        secret: generateWebhookSecret(),
        previousSecret: current.secret,
        previousSecretExpiresAt: expires,
        updatedAt: now,
      };
      await repo.saveEndpoint(next);
      return { id: next.id, secret: next.secret, previous_secret_expires_at: expires.toISOString() };
    });
  }

  /** Newest first; `status` filters. 404 when the webhook is not this account's. */
  async listDeliveries(principal: Principal, rawId: string, query: ListDeliveriesQuery): Promise<DeliveryPage> {
    const endpoint = await this.find(this.deps.store, principal, rawId);
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await this.deps.store.listDeliveries(principal.accountId, endpoint.id, query.status ?? null, query.limit + 1, after);
    return page(rows, query.limit, toDeliveryRecord);
  }

  /**
   * Sends the delivery again as soon as a worker is free: a failed one gets one more attempt, a
   * succeeded one is replayed, a waiting one skips its back-off. Same event, same `webhook-id`.
   * 409 conflict while an attempt is in flight or the webhook is disabled.
   */
  async retryDelivery(principal: Principal, rawWebhookId: string, rawDeliveryId: string): Promise<DeliveryRecord> {
    const endpoint = await this.find(this.deps.store, principal, rawWebhookId);
    if (endpoint.status === 'disabled') throw disabledConflict();
    const deliveryId = parseId('delivery', rawDeliveryId);
    const missing = new AppError('not_found', `No delivery with id ${rawDeliveryId} for this webhook.`);
    if (deliveryId === null) throw missing;
    const now = this.deps.clock.now();
    const requeued = await this.deps.store.requeueDelivery(principal.accountId, endpoint.id, deliveryId, now);
    const delivery = await this.deps.store.findDelivery(principal.accountId, endpoint.id, deliveryId);
    if (delivery === null) throw missing;
    if (!requeued) throw new AppError('conflict', 'An attempt of this delivery is in flight; retry after it completes.');
    return toDeliveryRecord(delivery);
  }

  /** Queues a sample event (envelope `test: true`) for this endpoint only, whatever it subscribes to. */
  async sendTest(principal: Principal, rawId: string, body: TestEventBody): Promise<TestEventResult> {
    const endpoint = await this.find(this.deps.store, principal, rawId);
    if (endpoint.status === 'disabled') throw disabledConflict();
    const type = body.event_type ?? endpoint.events[0] ?? 'search';
    const now = this.deps.clock.now();
    const id = newId();
    const delivery = await this.deps.store.enqueueForEndpoint(endpoint, {
      id,
      type,
      createdAt: now,
      payload: withLivemode(envelope(id, type, now, sampleData(type), true), principal.livemode !== false),
    });
    return { event_id: prefixedId('event', id), delivery: toDeliveryRecord(delivery) };
  }

  private async assertUrlAllowed(url: string): Promise<void> {
    const reason = await checkWebhookUrl(url, { allowPrivate: this.deps.allowPrivate, resolver: this.deps.resolver });
    if (reason !== null) {
      throw new AppError('webhook_url_not_allowed', `The webhook URL ${reason}.`, { errors: [{ path: 'body.url', message: reason }] });
    }
  }

  private async find(repo: WebhookRepository, principal: Principal, rawId: string): Promise<WebhookEndpoint> {
    const id = parseId('webhook', rawId);
    const endpoint = id === null ? null : await repo.findEndpoint(principal.accountId, id);
    if (endpoint === null) throw notFound(rawId);
    return endpoint;
  }
}

const notFound = (rawId: string) => new AppError('not_found', `No webhook with id ${rawId} in this account.`);
const disabledConflict = () => new AppError('conflict', 'The webhook is disabled; enable it first (PATCH {"status":"enabled"}).');

function page<T extends { createdAt: Date; id: string }, R>(rows: T[], limit: number, render: (row: T) => R) {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  return {
    data: items.map(render),
    next_cursor: hasMore ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    has_more: hasMore,
  };
}
