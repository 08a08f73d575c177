/** bench:worst's requests for clicks, conversions, display receipts, feedback and the signed redirect, each on a fresh search result. */
import { prefixedId } from '../../../../src/core/ids.js';
import { get, send, withKey } from '../client.js';
import { type Kind, MAX_RATIO, type Setup, times, v } from '../kinds.js';
import { longId, words } from '../texts.js';

export function eventKinds(s: Setup): Kind[] {
  const A = withKey(s.keyA);
  return [
    {
      route: 'POST /v1/clicks/:impression_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a new impression, UUID, no body', async (n) =>
        (await s.shown(n)).map((r) => send('POST', `/v1/clicks/${r.impressionId}`, undefined, A)),
      ),
      worst: [
        v('worst: imp_ form, body {}', async (n) =>
          (await s.shown(n)).map((r) => send('POST', `/v1/clicks/${prefixedId('impression', r.impressionId)}`, {}, A)),
        ),
      ],
    },
    {
      route: 'POST /v1/conversions',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: click_id, short order id', async (n) =>
        (await s.clicks(n)).map((c, i) =>
          send(
            'POST',
            '/v1/conversions',
            { click_id: c.clickId, order_id: `order-${Date.now()}-${i}`, sale_amount: 100, commission_amount: 5, currency: 'USD' },
            A,
          ),
        ),
      ),
      worst: [
        v('worst: impression_id (imp_ form), 200-char order id, largest amounts', async (n) =>
          (await s.clicks(n)).map((c) =>
            send(
              'POST',
              '/v1/conversions',
              { impression_id: prefixedId('impression', c.impressionId), order_id: longId(200), sale_amount: 1e12, commission_amount: 1e12, currency: 'USD' },
              A,
            ),
          ),
        ),
      ],
    },
    {
      route: 'POST /v1/displays',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 1 impression', async (n) => (await s.shown(n)).map((r) => send('POST', '/v1/displays', { impression_ids: [r.impressionId] }, A))),
      worst: [
        v('worst: 10 impressions, imp_ form', async (n) => {
          const shown = await s.shown(10 * n);
          return times(n, (i) =>
            send('POST', '/v1/displays', { impression_ids: shown.slice(10 * i, 10 * i + 10).map((r) => prefixedId('impression', r.impressionId)) }, A),
          );
        }),
      ],
    },
    {
      route: 'POST /v1/feedback',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: request and product, relevant: false', async (n) =>
        (await s.shown(n)).map((r) => send('POST', '/v1/feedback', { request_id: r.requestId, product_id: r.productId, relevant: false }, A)),
      ),
      worst: [
        v('worst: prefixed ids, 1,000-char reason, user_clicked', async (n) =>
          (await s.shown(n)).map((r) =>
            send(
              'POST',
              '/v1/feedback',
              {
                request_id: prefixedId('request', r.requestId),
                product_id: prefixedId('product', r.productId),
                relevant: false,
                reason: words(1000),
                user_clicked: true,
              },
              A,
            ),
          ),
        ),
      ],
    },
    {
      route: 'GET /r/:impression_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      // The click is recorded either way; without a product URL (the Home Depot feed has none) there is nowhere to redirect to.
      typical: v(
        `only form: a signed link, a browser${s.productUrls ? '' : ' (404: the products have no URL)'}`,
        async (n) =>
          (await s.shown(n)).map((r) =>
            get(new URL(r.clickUrl).pathname + new URL(r.clickUrl).search, {
              'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
            }),
          ),
        { ok: (status) => status === (s.productUrls ? 302 : 404) },
      ),
      worst: [],
    },
  ];
}
