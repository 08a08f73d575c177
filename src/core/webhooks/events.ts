import { prefixedId } from '../ids.js';

import type { EventType } from './event-types.js';

export type { EventType } from './event-types.js';

/**
 * The `data` of each event kind (docs/webhooks.md), built from bare UUIDs: ids leave prefixed.
 * Stores call these inside the transaction that records the fact, then hand the result to the
 * outbox (src/store/pg/outbox.ts appendEvent).
 */
export const eventData = {
  search: (s: { requestId: string; sessionId: string; query: string; productIds: readonly string[] }) => ({
    request_id: prefixedId('request', s.requestId),
    session_id: s.sessionId,
    query: s.query,
    result_count: s.productIds.length,
    product_ids: s.productIds.map((id) => prefixedId('product', id)),
  }),
  click: (c: { clickId: string; impressionId: string; productId: string; requestId: string; impressionDisplayed?: boolean }) => ({
    click_id: prefixedId('click', c.clickId),
    impression_id: prefixedId('impression', c.impressionId),
    product_id: prefixedId('product', c.productId),
    request_id: prefixedId('request', c.requestId),
    // Whether a display receipt for the impression (its card, with the disclosure, was on screen) came before the click.
    impression_displayed: c.impressionDisplayed ?? false,
  }),
  conversion: (c: {
    conversionId: string;
    clickId: string | null;
    impressionId: string;
    productId: string;
    orderId: string;
    saleAmount: number;
    commissionAmount: number;
    currency: string;
  }) => ({
    conversion_id: prefixedId('conversion', c.conversionId),
    click_id: c.clickId === null ? null : prefixedId('click', c.clickId),
    impression_id: prefixedId('impression', c.impressionId),
    product_id: prefixedId('product', c.productId),
    order_id: c.orderId,
    sale_amount: c.saleAmount,
    commission_amount: c.commissionAmount,
    currency: c.currency,
  }),
  feedback: (f: { feedbackId: string; requestId: string; productId: string; relevant: boolean; reason: string | null }) => ({
    feedback_id: prefixedId('feedback', f.feedbackId),
    request_id: prefixedId('request', f.requestId),
    product_id: prefixedId('product', f.productId),
    relevant: f.relevant,
    reason: f.reason,
  }),
} satisfies Record<EventType, (input: never) => Record<string, unknown>>;

/**
 * The exact body every delivery of the event sends: `{id, type, created_at, data}`. Built once
 * and stored, so retries (and their signatures) cover the same bytes. `test` marks events sent by
 * POST /webhooks/{id}/test.
 */
export function envelope(eventId: string, type: EventType, createdAt: Date, data: Record<string, unknown>, test = false): string {
  return JSON.stringify({ id: prefixedId('event', eventId), type, created_at: createdAt.toISOString(), data, ...(test ? { test: true } : {}) });
}

/**
 * The envelope with `livemode` first, as every delivered event carries it (false for events of a
 * test account, docs/commerce.md "Test mode"). The outbox writes the same prefix in SQL from the
 * account row (src/store/pg/outbox.ts), so both give the same bytes.
 */
export const withLivemode = (payload: string, livemode: boolean): string => `{"livemode":${livemode},${payload.slice(1)}`;
