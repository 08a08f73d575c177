/** bench:worst's requests for usage and analytics: the default 30 days against a year, daily, and a month hourly. */
import { get, withKey } from '../client.js';
import { type Kind, MAX_RATIO, rangeParams, rangeQuery, type Setup, times, v } from '../kinds.js';

export function analyticsKinds(s: Setup): Kind[] {
  const A = withKey(s.keyA);
  return [
    {
      route: 'GET /v1/usage',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: last 30 days, daily', (n) => times(n, () => get('/v1/usage', A))),
      worst: [
        v('worst: 366 days, daily', (n) => times(n, () => get(`/v1/usage?${rangeParams(366)}`, A))),
        v('worst: 31 days, hourly', (n) => times(n, () => get(`/v1/usage?${rangeQuery(31)}&granularity=hour`, A))),
      ],
    },
    {
      route: 'GET /v1/analytics',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: summary, last 30 days', (n) => times(n, () => get('/v1/analytics', A))),
      worst: [
        v('worst: summary, 366 days', (n) => times(n, () => get(`/v1/analytics?${rangeParams(366)}`, A))),
        v('worst: ctr, 31 days hourly', (n) => times(n, () => get(`/v1/analytics?metric=ctr&${rangeQuery(31)}&granularity=hour`, A))),
        v('worst: top_queries, 366 days', (n) => times(n, () => get(`/v1/analytics?metric=top_queries&${rangeParams(366)}`, A))),
        v('worst: top_products, 366 days', (n) => times(n, () => get(`/v1/analytics?metric=top_products&${rangeParams(366)}`, A))),
      ],
    },
    {
      route: 'GET /v1/dashboard/stats',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form (no input)', (n) => times(n, () => get('/v1/dashboard/stats', A))),
      worst: [],
    },
    {
      route: 'GET /v1/analytics/performance',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 24h', (n) => times(n, () => get('/v1/analytics/performance', A))),
      worst: [v('worst: 30d', (n) => times(n, () => get('/v1/analytics/performance?timeframe=30d', A)))],
    },
  ];
}
