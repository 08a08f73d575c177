/** bench:worst's requests for API keys; account K's keys are created for a batch and removed after it. */
import { prefixedId } from '../../../../src/core/ids.js';
import { SCOPES } from '../../../../src/core/keys/scopes.js';
import type { Principal } from '../../../../src/core/shared-ports.js';
import { get, send, withKey } from '../client.js';
import { DAY_MS, type Kind, MAX_RATIO, type Setup, times, v } from '../kinds.js';
import { words } from '../texts.js';

export function keyKinds(s: Setup): Kind[] {
  const A = withKey(s.keyA);
  const keysToDelete = async (principal: Principal, keep: string) => {
    const page = await s.server.core.keys.list(principal, { limit: 100 });
    for (const k of page.data) if (k.id !== keep && k.status !== 'revoked') await s.server.core.keys.remove(principal, k.id).catch(() => undefined);
  };
  const newKeys = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await s.server.core.keys.create(s.principalK, { name: `bench ${i}` })).metadata.id);
    return ids;
  };
  const cleanKeys = () => keysToDelete(s.principalK, s.principalK.keyId);
  return [
    {
      route: 'GET /v1/keys',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: default page (20) of 100 keys', (n) => times(n, () => get('/v1/keys', withKey(s.keyL)))),
      worst: [v('worst: limit=100 of 100 keys', (n) => times(n, () => get('/v1/keys?limit=100', withKey(s.keyL))))],
    },
    {
      route: 'POST /v1/keys',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a name', (n) => times(n, (i) => send('POST', '/v1/keys', { name: `agent ${i}` }, withKey(s.keyK))), { cleanup: cleanKeys }),
      worst: [
        v(
          'worst: 100-char name, every scope, expiry, rate limit',
          (n) =>
            times(n, () =>
              send(
                'POST',
                '/v1/keys',
                {
                  name: words(100).padEnd(100, 'x'),
                  scopes: [...SCOPES],
                  expires_at: new Date(Date.now() + 365 * DAY_MS).toISOString(),
                  rate_limit_per_minute: 1_000_000,
                },
                withKey(s.keyK),
              ),
            ),
          { cleanup: cleanKeys },
        ),
      ],
    },
    {
      route: 'GET /v1/keys/:key_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', (n) => times(n, () => get(`/v1/keys/${s.principalA.keyId}`, A))),
      worst: [v('worst: the key_ form', (n) => times(n, () => get(`/v1/keys/${prefixedId('key', s.principalA.keyId)}`, A)))],
    },
    {
      route: 'POST /v1/keys/:key_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: disable', async (n) => (await newKeys(n)).map((id) => send('POST', `/v1/keys/${id}`, { status: 'disabled' }, withKey(s.keyK))), {
        cleanup: cleanKeys,
      }),
      worst: [
        v(
          'worst: re-enable a disabled key, key_ form',
          async (n) => {
            const ids = await newKeys(n);
            for (const id of ids) await s.server.core.keys.update(s.principalK, id, { status: 'disabled' });
            return ids.map((id) => send('POST', `/v1/keys/${prefixedId('key', id)}`, { status: 'active' }, withKey(s.keyK)));
          },
          { cleanup: cleanKeys },
        ),
      ],
    },
    {
      route: 'POST /v1/keys/:key_id/rotate',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: no grace period', async (n) => (await newKeys(n)).map((id) => send('POST', `/v1/keys/${id}/rotate`, {}, withKey(s.keyK))), {
        cleanup: cleanKeys,
      }),
      worst: [
        v(
          'worst: 7-day grace period',
          async (n) => (await newKeys(n)).map((id) => send('POST', `/v1/keys/${id}/rotate`, { grace_period_seconds: 604_800 }, withKey(s.keyK))),
          { cleanup: cleanKeys },
        ),
      ],
    },
    {
      route: 'DELETE /v1/keys/:key_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', async (n) => (await newKeys(n)).map((id) => send('DELETE', `/v1/keys/${id}`, undefined, withKey(s.keyK))), {
        cleanup: cleanKeys,
      }),
      worst: [
        v(
          'worst: the key_ form',
          async (n) => (await newKeys(n)).map((id) => send('DELETE', `/v1/keys/${prefixedId('key', id)}`, undefined, withKey(s.keyK))),
          { cleanup: cleanKeys },
        ),
      ],
    },
  ];
}
