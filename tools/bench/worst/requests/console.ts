/** bench:worst's requests for the console's session and overview (its playground searches: search.ts). */
import { get, send } from '../client.js';
import { consoleHeaders, type Kind, MAX_RATIO, type Setup, times, v } from '../kinds.js';

export function consoleKinds(s: Setup): Kind[] {
  return [
    {
      route: 'POST /console/session',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form: an API key', (n) => times(n, () => send('POST', '/console/session', { api_key: s.keyA }))),
      worst: [],
    },
    {
      route: 'GET /console/session',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form (a session cookie)', async (n) => {
        const h = await consoleHeaders(s);
        return times(n, () => get('/console/session', { cookie: h.cookie }));
      }),
      worst: [],
    },
    {
      route: 'DELETE /console/session',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v(
        'only form (a session cookie, CSRF token)',
        async (n) => (await Promise.all(times(n, () => consoleHeaders(s)))).map((h) => send('DELETE', '/console/session', undefined, h)),
        { ok: (status) => status === 204 },
      ),
      worst: [],
    },
    {
      route: 'GET /console/overview',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 7d', async (n) => {
        const h = await consoleHeaders(s);
        return times(n, () => get('/console/overview', { cookie: h.cookie }));
      }),
      worst: [
        v('worst: 30d', async (n) => {
          const h = await consoleHeaders(s);
          return times(n, () => get('/console/overview?range=30d', { cookie: h.cookie }));
        }),
      ],
    },
  ];
}
