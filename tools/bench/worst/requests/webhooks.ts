/** bench:worst's requests for webhooks and their deliveries: account T's small webhooks against W's largest. */
import { prefixedId } from '../../../../src/core/ids.js';
import type { Principal } from '../../../../src/core/shared-ports.js';
import { EVENT_TYPES } from '../../../../src/core/webhooks/event-types.js';
import { get, send, withKey } from '../client.js';
import { type Kind, MAX_RATIO, type Setup, times, v } from '../kinds.js';
import { words } from '../texts.js';

export function webhookKinds(s: Setup): Kind[] {
  const webhookUrl = (chars: number) => {
    const head = 'https://93.184.216.34/hooks/';
    return head + 'a'.repeat(chars - head.length);
  };
  const newWebhooks = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await s.server.core.webhooks.create(s.principalW2, { url: webhookUrl(40), events: ['click'] })).id);
    return ids;
  };
  const cleanWebhooks = async () => {
    for (const w of (await s.server.core.webhooks.list(s.principalW2, { limit: 100 })).data) await s.server.core.webhooks.remove(s.principalW2, w.id);
  };
  const deliveriesOf = async (principal: Principal, webhook: string, n: number) =>
    (await s.server.core.webhooks.listDeliveries(principal, webhook, { limit: n })).data.map((d) => d.id);
  return [
    {
      route: 'POST /v1/webhooks',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v(
        'typical: a URL, one event',
        (n) => times(n, () => send('POST', '/v1/webhooks', { url: webhookUrl(40), events: ['click'] }, withKey(s.keyW2))),
        { cleanup: cleanWebhooks },
      ),
      worst: [
        v(
          'worst: 2,048-char URL, every event, 500-char description',
          (n) =>
            times(n, () =>
              send('POST', '/v1/webhooks', { url: webhookUrl(2048), events: [...EVENT_TYPES], description: words(500).padEnd(500, 'x') }, withKey(s.keyW2)),
            ),
          { cleanup: cleanWebhooks },
        ),
      ],
    },
    {
      route: 'GET /v1/webhooks',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: an account with 2', (n) => times(n, () => get('/v1/webhooks', withKey(s.keyT)))),
      worst: [v('worst: limit=100, 20 webhooks at their largest', (n) => times(n, () => get('/v1/webhooks?limit=100', withKey(s.keyW))))],
    },
    {
      route: 'GET /v1/webhooks/:webhook_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a small webhook', (n) => times(n, () => get(`/v1/webhooks/${s.webhooksT[0]}`, withKey(s.keyT)))),
      worst: [v('worst: the largest, wh_ form', (n) => times(n, () => get(`/v1/webhooks/${prefixedId('webhook', s.webhooksW[1]!)}`, withKey(s.keyW))))],
    },
    {
      route: 'PATCH /v1/webhooks/:webhook_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a description', (n) =>
        times(n, (i) => send('PATCH', `/v1/webhooks/${s.webhooksT[0]}`, { description: `note ${i}` }, withKey(s.keyT))),
      ),
      worst: [
        v('worst: URL 2,048, every event, description 500, status', (n) =>
          times(n, () =>
            send(
              'PATCH',
              `/v1/webhooks/${s.webhooksW[1]}`,
              { url: webhookUrl(2048), events: [...EVENT_TYPES], description: words(500).padEnd(500, 'x'), status: 'enabled' },
              withKey(s.keyW),
            ),
          ),
        ),
      ],
    },
    {
      route: 'DELETE /v1/webhooks/:webhook_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', async (n) => (await newWebhooks(n)).map((id) => send('DELETE', `/v1/webhooks/${id}`, undefined, withKey(s.keyW2))), {
        cleanup: cleanWebhooks,
      }),
      worst: [
        v(
          'worst: the wh_ form',
          async (n) => (await newWebhooks(n)).map((id) => send('DELETE', `/v1/webhooks/${prefixedId('webhook', id)}`, undefined, withKey(s.keyW2))),
          { cleanup: cleanWebhooks },
        ),
      ],
    },
    {
      route: 'POST /v1/webhooks/:webhook_id/rotate-secret',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a small webhook', (n) => times(n, () => send('POST', `/v1/webhooks/${s.webhooksT[1]}/rotate-secret`, undefined, withKey(s.keyT)))),
      worst: [
        v('worst: the largest, wh_ form', (n) =>
          times(n, () => send('POST', `/v1/webhooks/${prefixedId('webhook', s.webhooksW[2]!)}/rotate-secret`, undefined, withKey(s.keyW))),
        ),
      ],
    },
    {
      route: 'GET /v1/webhooks/:webhook_id/deliveries',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: default page of a webhook with a few', (n) => times(n, () => get(`/v1/webhooks/${s.webhooksT[0]}/deliveries`, withKey(s.keyT)))),
      worst: [
        v('worst: limit=100 of 1,000', (n) => times(n, () => get(`/v1/webhooks/${s.webhooksW[0]}/deliveries?limit=100`, withKey(s.keyW)))),
        v('worst: limit=100, status=failed (none of 1,000)', (n) =>
          times(n, () => get(`/v1/webhooks/${s.webhooksW[0]}/deliveries?limit=100&status=failed`, withKey(s.keyW))),
        ),
      ],
    },
    {
      route: 'POST /v1/webhooks/:webhook_id/deliveries/:delivery_id/retry',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v("typical: a small webhook's delivery", async (n) =>
        (await deliveriesOf(s.principalT, s.webhooksT[0]!, n)).map((d) =>
          send('POST', `/v1/webhooks/${s.webhooksT[0]}/deliveries/${d}/retry`, undefined, withKey(s.keyT)),
        ),
      ),
      worst: [
        v('worst: one of 1,000, prefixed ids', async (n) =>
          (await deliveriesOf(s.principalW, s.webhooksW[0]!, n)).map((d) =>
            send('POST', `/v1/webhooks/${prefixedId('webhook', s.webhooksW[0]!)}/deliveries/${prefixedId('delivery', d)}/retry`, undefined, withKey(s.keyW)),
          ),
        ),
      ],
    },
    {
      route: 'POST /v1/webhooks/:webhook_id/test',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: default event', (n) => times(n, () => send('POST', `/v1/webhooks/${s.webhooksT[1]}/test`, {}, withKey(s.keyT)))),
      worst: [
        v('worst: conversion event, the largest webhook', (n) =>
          times(n, () => send('POST', `/v1/webhooks/${s.webhooksW[3]}/test`, { event_type: 'conversion' }, withKey(s.keyW))),
        ),
      ],
    },
  ];
}
