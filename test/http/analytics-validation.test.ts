import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';

let t: TestApp;
const clock = new ManualClock('2026-11-22T10:30:00.000Z');

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => t.close());

const get = (url: string) => call(t.app, t.adminKey, 'GET', url);

describe('GET /v1/usage, /v1/analytics, /v1/analytics/performance: parameter validation', () => {
  it.each(['/v1/usage', '/v1/analytics', '/v1/analytics?metric=ctr'])('%s: start_date after end_date is 400 naming start_date', async (base) => {
    const sep = base.includes('?') ? '&' : '?';
    const body = expectProblem(await get(`${base}${sep}start_date=2026-11-10T00:00:00Z&end_date=2026-11-01T00:00:00Z`), 400, 'validation_failed');
    expect(body.errors).toEqual([{ path: 'query.start_date', message: 'must be before end_date' }]);
  });

  it('answers 400 when start_date equals end_date', async () => {
    expectProblem(await get('/v1/usage?start_date=2026-11-10T00:00:00Z&end_date=2026-11-10T00:00:00Z'), 400, 'validation_failed');
  });

  it('answers 400 naming start_date for a range over 366 days, and accepts exactly 366', async () => {
    const body = expectProblem(await get('/v1/analytics?start_date=2025-01-01T00:00:00Z&end_date=2026-01-02T00:00:01Z'), 400, 'validation_failed');
    expect((body.errors as { path: string }[])[0]!.path).toBe('query.start_date');
    expectStatus(await get('/v1/analytics?start_date=2025-01-01T00:00:00Z&end_date=2026-01-02T00:00:00Z'), 200);
    // Only start_date: end defaults to now, so a start 400 days back is too long a range.
    expectProblem(await get(`/v1/usage?start_date=${new Date(clock.now().getTime() - 400 * 86_400_000).toISOString()}`), 400, 'validation_failed');
  });

  it('answers 400 naming metric for an unknown metric', async () => {
    const body = expectProblem(await get('/v1/analytics?metric=bounce_rate'), 400, 'validation_failed');
    expect((body.errors as { path: string }[])[0]!.path).toBe('query.metric');
  });

  it('answers 400 naming timeframe for an unknown timeframe', async () => {
    const body = expectProblem(await get('/v1/analytics/performance?timeframe=2h'), 400, 'validation_failed');
    expect((body.errors as { path: string }[])[0]!.path).toBe('query.timeframe');
  });

  it('answers 400 for a date without an offset or not a date at all, naming the parameter', async () => {
    for (const bad of ['yesterday', '2026-11-01T00:00:00', '2026-13-01T00:00:00Z']) {
      const body = expectProblem(await get(`/v1/usage?end_date=${encodeURIComponent(bad)}`), 400, 'validation_failed');
      expect((body.errors as { path: string }[])[0]!.path).toBe('query.end_date');
    }
  });

  it('answers 400 naming granularity for hourly series over more than 31 days', async () => {
    const body = expectProblem(await get('/v1/usage?start_date=2026-09-01T00:00:00Z&end_date=2026-11-01T00:00:00Z&granularity=hour'), 400, 'validation_failed');
    expect((body.errors as { path: string }[])[0]!.path).toBe('query.granularity');
    expectProblem(await get('/v1/usage?granularity=week'), 400, 'validation_failed');
  });

  it('answers 400 for unknown query parameters (a typo is caught)', async () => {
    const body = expectProblem(await get('/v1/analytics?metirc=ctr'), 400, 'validation_failed');
    expect((body.errors as { path: string }[])[0]!.path).toBe('query.metirc');
    expectProblem(await get('/v1/dashboard/stats?x=1'), 400, 'validation_failed');
  });
});

describe('date handling', () => {
  it('accepts offsets and answers in UTC; defaults to 30 days back to now with daily buckets', async () => {
    const res = await get('/v1/usage?start_date=2026-11-20T12:00:00%2B02:00&end_date=2026-11-21T01:30:00-05:00');
    expectStatus(res, 200);
    const body = res.json();
    expect(body).toMatchObject({ start_date: '2026-11-20T10:00:00.000Z', end_date: '2026-11-21T06:30:00.000Z', granularity: 'hour' });
    // Buckets are UTC hours overlapping the range: 10:00 … 06:00 (the last one partly).
    expect(body.series).toHaveLength(21);
    expect(body.series[0].period_start).toBe('2026-11-20T10:00:00.000Z');
    expect(body.series.at(-1).period_start).toBe('2026-11-21T06:00:00.000Z');

    const def = (await get('/v1/usage')).json();
    expect(def).toMatchObject({ start_date: '2026-10-23T10:30:00.000Z', end_date: '2026-11-22T10:30:00.000Z', granularity: 'day' });
    expect(def.series).toHaveLength(31);
    expect(def.series[0].period_start).toBe('2026-10-23T00:00:00.000Z');
  });

  it('answers zeros for an empty range, not an error', async () => {
    const q = 'start_date=2020-01-01T00:00:00Z&end_date=2020-01-03T00:00:00Z&granularity=day';
    const usage = (await get(`/v1/usage?${q}`)).json();
    expect(usage.totals).toEqual({ requests: 0, searches: 0, results_returned: 0, clicks: 0, feedback: 0, errors: 0 });
    expect(usage.by_key).toEqual([]);
    expect(usage.series).toHaveLength(2);
    const analytics = (await get(`/v1/analytics?${q.replace('&granularity=day', '')}`)).json();
    expect(analytics).toEqual({
      start_date: '2020-01-01T00:00:00.000Z',
      end_date: '2020-01-03T00:00:00.000Z',
      metrics: { impressions: 0, displayed_impressions: 0, display_rate: 0, clicks: 0, ctr: 0, conversions: 0, conversion_rate: 0, revenue: 0 },
      top_products: [],
      top_queries: [],
      top_categories: [],
    });
    for (const metric of ['ctr', 'conversion_rate', 'revenue', 'display_rate']) {
      const m = (await get(`/v1/analytics?${q}&metric=${metric}`)).json();
      expect(m).toMatchObject({ metric, value: 0, granularity: 'day' });
      expect(m.series).toEqual([
        { period_start: '2020-01-01T00:00:00.000Z', value: 0 },
        { period_start: '2020-01-02T00:00:00.000Z', value: 0 },
      ]);
    }
    expect((await get(`/v1/analytics?${q}&metric=top_queries`)).json()).toMatchObject({ metric: 'top_queries', items: [] });
    expect((await get(`/v1/analytics?${q}&metric=top_categories`)).json()).toEqual({
      metric: 'top_categories',
      start_date: '2020-01-01T00:00:00.000Z',
      end_date: '2020-01-03T00:00:00.000Z',
      category_level: 2,
      category_order: 'impressions',
      items: [],
    });
  });
});

describe('GET /v1/analytics/performance and /v1/dashboard/stats on a quiet account', () => {
  it('answers the default 24h timeframe with hourly buckets, and zeros where nothing happened', async () => {
    const fresh = await t.core.accounts.create('quiet');
    const res = await call(t.app, fresh.firstKey.key, 'GET', '/v1/analytics/performance');
    expectStatus(res, 200);
    const body = res.json();
    expect(body).toMatchObject({
      timeframe: '24h',
      requests: 0,
      latency_ms: { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
      status_codes: {},
      by_endpoint: [],
      by_status: [],
      granularity: 'hour',
    });
    expect(body.series).toHaveLength(25);
    const stats = (await call(t.app, fresh.firstKey.key, 'GET', '/v1/dashboard/stats')).json();
    expect(stats).toEqual({
      total_revenue: 0,
      currency: 'USD',
      revenue_by_currency: {},
      active_api_keys: 1,
      ad_requests_24h: 0,
      impressions_24h: 0,
      clicks_24h: 0,
      ctr_24h: 0,
    });
  });
});
