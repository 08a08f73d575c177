import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Analytics, DashboardStats, Performance, TopCategory } from '../../core/schemas/analytics.js';
import type { ConsoleOverview, ConsoleRange } from '../../core/schemas/console.js';
import { ApiError, api, query } from './api.js';
import { Chart } from './chart.js';
import { fmtInt, fmtMoney, fmtMs, fmtPercent } from './format.js';
import { DataTable } from './table.js';

const RANGES: { id: ConsoleRange; label: string }[] = [
  { id: '24h', label: '24 hours' },
  { id: '7d', label: '7 days' },
  { id: '30d', label: '30 days' },
];

function Tile({ label, value, metric, raw }: { label: string; value: string; metric: string; raw: number }) {
  return (
    <div class="tile" data-metric={metric} data-value={raw}>
      <div class="tile-label">{label}</div>
      <div class="tile-value">{value}</div>
    </div>
  );
}

/** GET /v1/analytics?metric=top_categories's answer. */
type TopCategories = Extract<Analytics, { metric: 'top_categories' }>;

function Failed({ error }: { error: unknown }) {
  return (
    <p class="error" role="alert">
      {error instanceof ApiError ? error.detail : 'Could not load these figures.'}
    </p>
  );
}

export function Overview() {
  const [range, setRange] = useState<ConsoleRange>('7d');
  // Test data: what aisle_test_ keys recorded, kept apart from live figures (docs/commerce.md, "Test mode").
  const [testData, setTestData] = useState(false);
  const [stats, setStats] = useState<DashboardStats | null>(null);
  const [overview, setOverview] = useState<ConsoleOverview | null>(null);
  const [perf, setPerf] = useState<Performance | null>(null);
  const [categories, setCategories] = useState<TopCategory[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setError(null);
    const mode = testData ? { livemode: 'false' } : {};
    // Top categories for exactly the overview's range, so they add up with its figures.
    const overviewAndCategories = api<ConsoleOverview>('GET', `/console/overview${query({ range, ...mode })}`).then(async (o) => {
      const params = { metric: 'top_categories', start_date: o.start_date, end_date: o.end_date, ...mode };
      return [o, await api<TopCategories>('GET', `/v1/analytics${query(params)}`)] as const;
    });
    Promise.all([
      api<DashboardStats>('GET', `/v1/dashboard/stats${query(mode)}`),
      overviewAndCategories,
      api<Performance>('GET', `/v1/analytics/performance${query({ timeframe: range, ...mode })}`),
    ]).then(
      ([s, [o, c], p]) => {
        if (!live) return;
        setStats(s);
        setOverview(o);
        setCategories(c.items);
        setPerf(p);
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [range, testData, attempt]);

  const currency = stats?.currency ?? 'USD';
  const money = useMemo(() => (v: number) => fmtMoney(v, currency), [currency]);
  const times = useMemo(() => overview?.series.map((b) => Date.parse(b.period_start)) ?? [], [overview]);
  const charts = useMemo(() => {
    if (!overview) return null;
    const col = <K extends keyof ConsoleOverview['series'][number]>(k: K) => overview.series.map((b) => b[k] as number);
    return {
      traffic: [
        { label: 'Searches', values: col('searches'), color: '#2f6feb' },
        { label: 'Impressions', values: col('impressions'), color: '#8250df' },
        { label: 'Clicks', values: col('clicks'), color: '#1a7f37' },
      ],
      ctr: [{ label: 'CTR', values: col('ctr'), color: '#bf3989' }],
      conversions: [{ label: 'Conversions', values: col('conversions'), color: '#9a6700' }],
      revenue: [{ label: 'Revenue', values: col('revenue'), color: '#0a7d6c' }],
    };
  }, [overview]);
  const perfTimes = useMemo(() => perf?.series.map((b) => Date.parse(b.period_start)) ?? [], [perf]);
  const perfSeries = useMemo(() => (perf ? [{ label: 'p95 latency', values: perf.series.map((b) => b.p95), color: '#cf222e' }] : []), [perf]);

  const modeControl = (
    <label class="mode-switch">
      <input type="checkbox" checked={testData} onChange={(e) => setTestData((e.target as HTMLInputElement).checked)} />
      <span>Test data</span>
    </label>
  );
  const rangeControl = (
    <fieldset class="segmented">
      <legend>Range</legend>
      {RANGES.map((r) => (
        <label key={r.id}>
          <input type="radio" name="range" value={r.id} checked={range === r.id} onChange={() => setRange(r.id)} />
          <span>{r.label}</span>
        </label>
      ))}
    </fieldset>
  );
  if (error) {
    return (
      <div class="overview">
        <div class="section-head">
          <h2>Activity</h2>
          {rangeControl}
        </div>
        <Failed error={error} />
        <button type="button" onClick={() => setAttempt((n) => n + 1)}>
          Try again
        </button>
      </div>
    );
  }
  if (!stats || !overview || !perf || !charts || !categories) return <p role="status">Loading figures…</p>;
  const t = overview.totals;
  const bucket = overview.granularity === 'hour' ? 'per hour' : 'per day';
  return (
    <div class="overview">
      {testData ? (
        <p class="test-banner" role="status" data-mode="test">
          Showing test data: what aisle_test_ keys recorded. None of it counts in live figures.
        </p>
      ) : null}
      <section aria-labelledby="now-h">
        <div class="section-head">
          <h2 id="now-h">Right now</h2>
          {modeControl}
        </div>
        <div class="tiles" data-section="dashboard">
          <Tile metric="total_revenue" label="Revenue, all time" value={fmtMoney(stats.total_revenue, stats.currency)} raw={stats.total_revenue} />
          <Tile metric="active_api_keys" label="Active API keys" value={fmtInt(stats.active_api_keys)} raw={stats.active_api_keys} />
          <Tile metric="ad_requests_24h" label="Searches, last 24 h" value={fmtInt(stats.ad_requests_24h)} raw={stats.ad_requests_24h} />
          <Tile metric="clicks_24h" label="Clicks, last 24 h" value={fmtInt(stats.clicks_24h)} raw={stats.clicks_24h} />
          <Tile metric="ctr_24h" label="CTR, last 24 h" value={fmtPercent(stats.ctr_24h)} raw={stats.ctr_24h} />
        </div>
      </section>

      <section aria-labelledby="range-h">
        <div class="section-head">
          <h2 id="range-h">Activity</h2>
          {rangeControl}
        </div>
        <p class="muted" data-range-start={overview.start_date} data-range-end={overview.end_date}>
          {new Date(overview.start_date).toLocaleString()} to {new Date(overview.end_date).toLocaleString()}, {bucket}. Console searches are not counted.
        </p>
        <div class="tiles" data-section="range-totals">
          <Tile metric="searches" label="Searches" value={fmtInt(t.searches)} raw={t.searches} />
          <Tile metric="impressions" label="Impressions" value={fmtInt(t.impressions)} raw={t.impressions} />
          <Tile metric="clicks" label="Clicks" value={fmtInt(t.clicks)} raw={t.clicks} />
          <Tile metric="ctr" label="CTR" value={fmtPercent(t.ctr)} raw={t.ctr} />
          <Tile metric="conversions" label="Conversions" value={fmtInt(t.conversions)} raw={t.conversions} />
          <Tile metric="revenue" label="Revenue" value={money(t.revenue)} raw={t.revenue} />
        </div>
        <div class="charts">
          <Chart
            title="Searches, impressions and clicks"
            summary={`${fmtInt(t.searches)} searches, ${fmtInt(t.impressions)} impressions, ${fmtInt(t.clicks)} clicks ${bucket}`}
            times={times}
            series={charts.traffic}
            format={fmtInt}
            integer
          />
          <Chart title="Click-through rate" summary={`${fmtPercent(t.ctr)} over the range`} times={times} series={charts.ctr} format={fmtPercent} />
          <Chart title="Conversions" summary={`${fmtInt(t.conversions)} over the range`} times={times} series={charts.conversions} format={fmtInt} integer />
          <Chart title="Revenue" summary={`${money(t.revenue)} over the range`} times={times} series={charts.revenue} format={money} />
        </div>
      </section>

      <div class="two-col">
        <section aria-labelledby="top-products-h">
          <h2 id="top-products-h">Top products</h2>
          {overview.top_products.length === 0 ? (
            <p class="muted">No products were shown in this range.</p>
          ) : (
            <DataTable
              name="top-products"
              columns={[
                { head: 'Product', cell: (p) => p.title ?? <span class="muted">(no longer in the catalog)</span> },
                { head: 'Impressions', num: true, cell: (p) => fmtInt(p.impressions) },
                { head: 'Clicks', num: true, cell: (p) => fmtInt(p.clicks) },
                { head: 'CTR', num: true, cell: (p) => fmtPercent(p.ctr) },
                { head: 'Revenue', num: true, cell: (p) => money(p.revenue) },
              ]}
              rows={overview.top_products}
              rowKey={(p) => p.product_id}
            />
          )}
        </section>
        <section aria-labelledby="top-queries-h">
          <h2 id="top-queries-h">Top queries</h2>
          {overview.top_queries.length === 0 ? (
            <p class="muted">No searches in this range.</p>
          ) : (
            <DataTable
              name="top-queries"
              columns={[
                { head: 'Query', cell: (q) => q.query },
                { head: 'Searches', num: true, cell: (q) => fmtInt(q.searches) },
                { head: 'Clicks', num: true, cell: (q) => fmtInt(q.clicks) },
                { head: 'CTR', num: true, cell: (q) => fmtPercent(q.ctr) },
              ]}
              rows={overview.top_queries}
              rowKey={(q) => q.query}
            />
          )}
        </section>
      </div>

      <section aria-labelledby="top-categories-h">
        <h2 id="top-categories-h">Top categories</h2>
        <p class="muted">Where the products shown sit in the Google product taxonomy, two levels deep, most impressions first.</p>
        {categories.length === 0 ? (
          <p class="muted">No products were shown in this range.</p>
        ) : (
          <DataTable
            name="top-categories"
            columns={[
              { head: 'Category', cell: (c) => c.category_path ?? <span class="muted">(unplaced)</span> },
              { head: 'Impressions', num: true, cell: (c) => fmtInt(c.impressions) },
              { head: 'Clicks', num: true, cell: (c) => fmtInt(c.clicks) },
              { head: 'CTR', num: true, cell: (c) => fmtPercent(c.ctr) },
              { head: 'Revenue', num: true, cell: (c) => money(c.revenue) },
            ]}
            rows={categories}
            rowKey={(c) => `${c.category_id}|${c.category_path}`}
            rowData={(c) => ({ 'data-category-id': c.category_id === null ? 'unplaced' : String(c.category_id) })}
          />
        )}
      </section>

      <section aria-labelledby="perf-h">
        <h2 id="perf-h">Performance</h2>
        <p class="muted">
          Server time of this account's API requests in the last {RANGES.find((r) => r.id === range)?.label}; the console's own requests are not counted.
        </p>
        <div class="tiles" data-section="latency">
          <Tile metric="requests" label="Requests" value={fmtInt(perf.requests)} raw={perf.requests} />
          <Tile metric="p50" label="p50" value={fmtMs(perf.latency_ms.p50)} raw={perf.latency_ms.p50} />
          <Tile metric="p95" label="p95" value={fmtMs(perf.latency_ms.p95)} raw={perf.latency_ms.p95} />
          <Tile metric="p99" label="p99" value={fmtMs(perf.latency_ms.p99)} raw={perf.latency_ms.p99} />
        </div>
        <div class="charts">
          <Chart title="p95 latency" summary={`p95 ${fmtMs(perf.latency_ms.p95)} over the window`} times={perfTimes} series={perfSeries} format={fmtMs} />
          <DataTable
            name="status-codes"
            caption="Responses by status code"
            columns={[
              { head: 'Status', cell: (c) => c.status },
              { head: 'Requests', num: true, cell: (c) => fmtInt(c.requests) },
              { head: 'p50', num: true, cell: (c) => fmtMs(c.p50) },
              { head: 'p95', num: true, cell: (c) => fmtMs(c.p95) },
            ]}
            rows={perf.by_status}
            rowKey={(c) => c.status}
            empty="No API requests in this window."
          />
        </div>
      </section>
    </div>
  );
}
