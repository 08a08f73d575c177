/**
 * Traces (docs/operations.md, "Traces") from a real `npm start` with the standard
 * OTEL_EXPORTER_OTLP_ENDPOINT, received by a local OTLP/HTTP receiver: a search continues the
 * caller's trace and carries a span per request, per search stage, per catalog read and per
 * database statement, nested as the work is.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Child, childEnv, runTs, seededDataDir } from '../helpers/process.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('traces over OTLP/HTTP from npm start', () => {
  let receiver: Server;
  const exports: OtlpExport[] = [];
  const paths: string[] = [];
  let server: Child;
  let api = '';
  let key = '';
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const dataDir = await seededDataDir('tracing');
    server = runTs(
      'src/main.ts',
      [],
      childEnv(dataDir, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_SERVICE_NAME: 'aisle-test',
        LOG_LEVEL: 'warn',
      }),
    );
    [, key] = (await server.waitForStderr(/admin API key, shown only now: (\S+)/, 120_000)) as [string, string];
    [, api] = (await server.waitForStderr(/Aisle listening on (http:\/\/\S+) \(/, 60_000)) as [string, string];
  }, 180_000);
  afterAll(async () => {
    server?.proc.kill('SIGTERM');
    await server?.exited;
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  const spansOf = (traceId: string): OtlpSpan[] =>
    exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))).filter((s) => s.traceId === traceId);

  it('continues the caller’s trace with a span per request, search stage, catalog read and statement', { timeout: 60_000 }, async () => {
    const res = await fetch(`${api}/v1/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ query: 'we are going camping, what do we sleep in?', limit: 3 }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    // Batched every 200 ms: the respond stage's span ends last among the search's.
    for (let i = 0; i < 100 && !spansOf(TRACE_ID).some((s) => s.name === 'POST /v1/search'); i++) await sleep(100);

    expect(paths[0]).toMatch(/^POST \/v1\/traces application\/json/);
    const resource = exports[0]!.resourceSpans[0]!.resource.attributes;
    expect(resource.find((a) => a.key === 'service.name')?.value.stringValue).toBe('aisle-test');

    const spans = spansOf(TRACE_ID);
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const request = byName('POST /v1/search');
    expect(request).toHaveLength(1);
    // The request's span is the caller's child, a server span (kind 2).
    expect(request[0]!.parentSpanId).toBe(CALLER_SPAN);
    expect(request[0]!.kind).toBe(2);
    const status = request[0]!.attributes?.find((a) => a.key === 'http.response.status_code')?.value.intValue;
    expect(Number(status)).toBe(200);

    for (const stage of ['ask', 'read', 'retrieve', 'score', 'order', 'respond']) {
      const found = byName(`search.${stage}`);
      expect(found, stage).toHaveLength(1);
      expect(found[0]!.parentSpanId, stage).toBe(request[0]!.spanId);
    }
    const retrieve = byName('search.retrieve')[0]!;
    for (const read of ['catalog.vector_search', 'catalog.text_search']) {
      const found = byName(read);
      expect(found.length, read).toBeGreaterThanOrEqual(1);
      for (const s of found) expect(s.parentSpanId, read).toBe(retrieve.spanId);
    }
    // The search, its impressions and its event are written by one statement, in the respond stage.
    const respond = byName('search.respond')[0]!;
    const writes = byName('db.query').filter((s) => s.parentSpanId === respond.spanId);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.attributes?.find((a) => a.key === 'db.query.text')?.value.stringValue).toMatch(/INSERT INTO search_requests/);
    // Authentication's lookup of the key happens inside the request too.
    expect(byName('db.query').some((s) => s.parentSpanId === request[0]!.spanId)).toBe(true);
  });
});
