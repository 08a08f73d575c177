/**
 * GET /metrics (docs/operations.md) from a real `npm start`: on its own address, in Prometheus's
 * text format, with every metric the server keeps; scraped by a real Prometheus that finds the
 * series with PromQL and loads the shipped alert rules; and, on PostgreSQL with two API
 * processes, one view over both.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb, usingRealPostgres } from '../helpers/db.js';
import { callTool, connectHttp } from '../helpers/mcp.js';
import { type Child, childEnv, runTs, seededDataDir, tempDir } from '../helpers/process.js';

const PROMETHEUS = process.env.AISLE_PROMETHEUS ?? '/usr/bin/prometheus';
const PROMTOOL = join(PROMETHEUS, '..', 'promtool');
const prometheusPresent = existsSync(PROMETHEUS);
/** CI installs Prometheus (.ci/run) and sets AISLE_REQUIRE_PROMETHEUS=1: there its absence fails the test instead of skipping it. */
const prometheusRequired = process.env.AISLE_REQUIRE_PROMETHEUS === '1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A GET on a new connection: status, content type and body. */
function get(url: string, method = 'GET'): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { method, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
  });
}

async function post(url: string, key: string, body: unknown): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The value of one sample in Prometheus text, by its name and labels exactly as written; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Every metric the server documents and keeps (src/metrics/metrics.ts), with its type. */
const METRICS: [string, 'counter' | 'gauge' | 'histogram'][] = [
  ['aisle_http_request_duration_seconds', 'histogram'],
  ['aisle_search_stage_duration_seconds', 'histogram'],
  ['aisle_searches_total', 'counter'],
  ['aisle_mcp_tool_call_duration_seconds', 'histogram'],
  ['aisle_embedding_batch_duration_seconds', 'histogram'],
  ['aisle_embedding_texts_total', 'counter'],
  ['aisle_catalog_call_duration_seconds', 'histogram'],
  ['aisle_event_write_duration_seconds', 'histogram'],
  ['aisle_feed_pulls_total', 'counter'],
  ['aisle_webhook_delivery_attempts_total', 'counter'],
  ['aisle_webhook_delivery_lag_seconds', 'histogram'],
  ['aisle_import_products_total', 'counter'],
  ['aisle_imports_running', 'gauge'],
  ['aisle_catalog_products', 'gauge'],
  ['aisle_catalog_version', 'gauge'],
  ['aisle_catalog_age_seconds', 'gauge'],
  ['aisle_product_cache_bytes', 'gauge'],
  ['aisle_product_cache_budget_bytes', 'gauge'],
  ['aisle_product_cache_lookups_total', 'counter'],
  ['aisle_db_pool_connections', 'gauge'],
  ['aisle_webhook_queue_depth', 'gauge'],
  ['aisle_webhook_oldest_due_seconds', 'gauge'],
  ['aisle_process_resident_memory_bytes', 'gauge'],
  ['aisle_nodejs_eventloop_lag_p99_seconds', 'gauge'],
];

describe('GET /metrics from npm start (one process, the embedded database)', () => {
  let server: Child;
  let api = '';
  let metricsUrl = '';
  let key = '';
  beforeAll(async () => {
    const dataDir = await seededDataDir('metrics');
    server = runTs('src/main.ts', [], childEnv(dataDir, { AISLE_METRICS_LISTEN: '127.0.0.1:0', LOG_LEVEL: 'warn' }));
    [, metricsUrl] = (await server.waitForStderr(/Metrics at (http:\/\/\S+)/, 120_000)) as [string, string];
    [, key] = (await server.waitForStderr(/admin API key, shown only now: (\S+)/)) as [string, string];
    [, api] = (await server.waitForStderr(/Aisle listening on (http:\/\/\S+) \(/, 60_000)) as [string, string];
  }, 180_000);
  let prometheus: ReturnType<typeof spawn> | undefined;
  afterAll(async () => {
    const running = prometheus;
    if (running && running.exitCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    }
    server?.proc.kill('SIGTERM');
    await server?.exited;
  });

  it('counts what the server did, on its own address, with help text and base units', async () => {
    expect(await post(`${api}/v1/search`, key, { query: 'ultralight tent', limit: 3 })).toBe(200);
    expect(await post(`${api}/v1/search`, key, { query: 'we are going camping, what do we sleep in?', limit: 3 })).toBe(200);
    expect(await post(`${api}/v1/search`, key, { query: 'tent', limit: 0 })).toBe(400);
    const client = await connectHttp('2026-07-28 (SDK 2)', `${api}/mcp`, { headers: { 'x-api-key': key } });
    const result = await callTool(client, 'search_products', { query: 'down sleeping bag', limit: 2 });
    expect(result.isError).not.toBe(true);
    await client.close();

    const scrape = await get(metricsUrl);
    expect(scrape.status).toBe(200);
    expect(scrape.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = scrape.body;
    for (const [name, type] of METRICS) {
      expect(text, name).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
      expect(text, name).toMatch(new RegExp(`^# TYPE ${name} ${type}$`, 'm'));
    }
    // Every request by its route's template and status; the MCP call is one POST /mcp.
    expect(sample(text, 'aisle_http_request_duration_seconds_count{method="POST",route="/v1/search",status="200"}')).toBe(2);
    expect(sample(text, 'aisle_http_request_duration_seconds_count{method="POST",route="/v1/search",status="400"}')).toBe(1);
    expect(sample(text, 'aisle_mcp_tool_call_duration_seconds_count{tool="search_products",outcome="ok"}')).toBe(1);
    // Three searches ran (two over REST, one over MCP): each stage of each.
    for (const stage of ['ask', 'read', 'retrieve', 'score', 'order', 'respond'])
      expect(sample(text, `aisle_search_stage_duration_seconds_count{stage="${stage}"}`), stage).toBe(3);
    expect(sample(text, 'aisle_searches_total{reader="offline",outcome="results"}')).toBe(3);
    expect(sample(text, 'aisle_event_write_duration_seconds_count{kind="search"}')).toBe(3);
    expect(sample(text, 'aisle_catalog_call_duration_seconds_count{call="vector_search"}')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'aisle_embedding_texts_total')).toBeGreaterThan(0);
    // The serving catalog: the sample's 501 products, published moments ago.
    expect(sample(text, 'aisle_catalog_products')).toBe(501);
    expect(sample(text, 'aisle_catalog_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'aisle_product_cache_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'aisle_product_cache_budget_bytes')).toBe(256 * 1024 * 1024);
    expect(sample(text, 'aisle_product_cache_lookups_total{result="hit"}')).toBeGreaterThan(0);
    expect(sample(text, 'aisle_webhook_queue_depth')).toBe(0);
    expect(sample(text, 'aisle_process_resident_memory_bytes')).toBeGreaterThan(50 * 1024 * 1024);
    // The embedded database has no pool: no pool series rather than made-up ones.
    expect(text).not.toMatch(/^aisle_db_pool_connections\{/m);
  });

  it('serves only GET and HEAD of /metrics there, and nothing of it on the public port', async () => {
    expect((await get(metricsUrl, 'HEAD')).status).toBe(200);
    expect((await get(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await get(metricsUrl.replace('/metrics', '/v1/search'))).status).toBe(404);
    const posted = await fetch(metricsUrl, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect((await get(`${api}/metrics`)).status).toBe(404);
  });

  describe.skipIf(!prometheusPresent && !prometheusRequired)('scraped by Prometheus', () => {
    let promUrl = '';

    it('finds the series with PromQL, and loads the shipped alert rules', { timeout: 120_000 }, async () => {
      expect(prometheusPresent, `${PROMETHEUS} (AISLE_PROMETHEUS) is absent and AISLE_REQUIRE_PROMETHEUS=1`).toBe(true);
      // The rules file is what docs/operations.md ships; promtool is Prometheus's own checker.
      const checked = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const tool = spawn(PROMTOOL, ['check', 'rules', 'docs/alerts.yml']);
        let out = '';
        tool.stdout.on('data', (c: Buffer) => (out += c.toString()));
        tool.stderr.on('data', (c: Buffer) => (out += c.toString()));
        tool.on('exit', (code) => resolve({ code, out }));
      });
      expect(checked.code, checked.out).toBe(0);

      const dir = tempDir('prometheus');
      const target = new URL(metricsUrl).host;
      writeFileSync(
        join(dir, 'prometheus.yml'),
        [
          'global: { scrape_interval: 1s, evaluation_interval: 1s }',
          `rule_files: ["${join(process.cwd(), 'docs/alerts.yml')}"]`,
          'scrape_configs:',
          `  - { job_name: aisle, static_configs: [{ targets: ["${target}"] }] }`,
        ].join('\n'),
      );
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      promUrl = `http://127.0.0.1:${port}`;
      prometheus = spawn(
        PROMETHEUS,
        [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
        {
          stdio: 'ignore',
        },
      );
      const query = async (promql: string) => {
        const res = await get(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`).catch(() => null);
        if (res === null || res.status !== 200) return [];
        return (JSON.parse(res.body) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
      };
      let found: Awaited<ReturnType<typeof query>> = [];
      for (let i = 0; i < 60 && found.length === 0; i++) {
        await sleep(1_000);
        found = await query('sum by (stage) (aisle_search_stage_duration_seconds_count)');
      }
      expect(found.map((r) => r.metric.stage).sort()).toEqual(['ask', 'order', 'read', 'respond', 'retrieve', 'score']);
      expect((await query('up{job="aisle"}'))[0]?.value[1]).toBe('1');
      expect(Number((await query('aisle_catalog_products'))[0]?.value[1])).toBe(501);

      // Every rule loaded and evaluates without error against the live series.
      let groups: { name: string; rules: { name: string; health: string; lastError?: string }[] }[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await get(`${promUrl}/api/v1/rules`);
        groups = (JSON.parse(res.body) as { data: { groups: typeof groups } }).data.groups;
        if (groups.length > 0 && groups.every((g) => g.rules.every((r) => r.health !== 'unknown'))) break;
        await sleep(1_000);
      }
      const rules = groups.flatMap((g) => g.rules);
      expect(rules.length).toBeGreaterThanOrEqual(8);
      for (const r of rules) expect(r.health, `${r.name}: ${r.lastError ?? ''}`).toBe('ok');
    });
  });
});

describe.skipIf(!usingRealPostgres())('GET /metrics over two API processes on PostgreSQL', () => {
  let testDb: TestDb;
  let server: Child;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    server?.proc.kill('SIGTERM');
    await server?.exited;
    await testDb?.cleanup();
  });

  it('serves one view from the primary: requests of both processes summed, the pool of each', { timeout: 240_000 }, async () => {
    const dataDir = await seededDataDir('metrics-cluster', { catalog: false });
    server = runTs('src/main.ts', [], {
      ...childEnv(dataDir, { AISLE_SAMPLE_CATALOG: 'false', AISLE_API_PROCESSES: '2', AISLE_METRICS_LISTEN: '127.0.0.1:0', LOG_LEVEL: 'info' }),
      DATABASE_URL: testDb.url!,
      DATABASE_POOL_SIZE: '4',
    });
    const [, url] = await server.waitForStderr(/Aisle listening on (http:\/\/\S+) with 2 API processes/, 120_000);
    const [, metricsUrl] = await server.waitForStderr(/Metrics at (http:\/\/\S+)/, 60_000);
    const [, key] = await server.waitForStderr(/admin API key, shown only now: (\S+)/);
    // Both processes listen before the count starts.
    for (let i = 0; i < 100 && (server.stderr().match(/"API process listening"/g) ?? []).length < 2; i++) await sleep(100);
    const REQUESTS = 30;
    for (let i = 0; i < REQUESTS; i++) {
      const res = await fetch(`${url}/v1/keys`, { headers: { 'x-api-key': key!, connection: 'close' } });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    const text = (await get(metricsUrl!)).body;
    expect(sample(text, 'aisle_http_request_duration_seconds_count{method="GET",route="/v1/keys",status="200"}')).toBe(REQUESTS);
    // Each process's own memory is its own series, not a sum.
    for (const index of ['0', '1']) expect(sample(text, `aisle_process_resident_memory_bytes{process="${index}"}`), index).toBeGreaterThan(50 * 1024 * 1024);
    // Each process's pool is summed; connections exist in both.
    expect(sample(text, 'aisle_db_pool_connections{state="waiting"}')).toBe(0);
    expect(sample(text, 'aisle_db_pool_connections{state="idle"}')! + sample(text, 'aisle_db_pool_connections{state="in_use"}')!).toBeGreaterThanOrEqual(2);
  });
});
