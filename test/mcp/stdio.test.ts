/**
 * The stdio MCP server as an agent runs it: the exact command of README's claude_desktop_config.json
 * snippets, spawned as a child, driven by the real SDK Client. One data directory serves the file:
 * first `npm start` holds it (the in-process MCP server must refuse, the AISLE_BASE_URL variant
 * forwards to it), then the server stops and the in-process variant opens it. Both variants run
 * the same scenario and must give the same tool results.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchResponseSchema } from '../../src/core/schemas/search.js';
import {
  type AnyClient,
  type CallToolResult,
  type ClientEra,
  callTool,
  type DesktopServerSpec,
  ERA_VERSION,
  newClient,
  problem,
  protocolOf,
  RecordingStdioTransport,
  readmeMcpSnippets,
  structured,
  TOOL_NAMES,
  text,
} from '../helpers/mcp.js';
import { type Child, childEnv, runTs, seededDataDir, tempDir } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const [inProcessSpec, remoteSpec] = readmeMcpSnippets(`${ROOT}/README.md`);

let dataDir: string;
let server: Child;
let adminKey: string;
let base: string;
const transports: RecordingStdioTransport[] = [];

/** README's command and args with the checkout's path; its env keys, with this test's values. */
function readmeCommand(spec: DesktopServerSpec | undefined, values: Record<string, string>, extraEnv: Record<string, string> = {}) {
  if (!spec) throw new Error('README has no claude_desktop_config.json snippet for this variant');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extraEnv };
  for (const name of Object.keys(spec.env)) {
    const value = values[name];
    if (value === undefined) throw new Error(`no test value for README's ${name}`);
    env[name] = value;
  }
  return { command: spec.command, args: spec.args.map((a) => a.replace('/path/to/aisle', ROOT)), env, cwd: tempDir('cwd') };
}

function spawnFromReadme(spec: DesktopServerSpec | undefined, values: Record<string, string>, extraEnv: Record<string, string> = {}): RecordingStdioTransport {
  const transport = new RecordingStdioTransport(readmeCommand(spec, values, extraEnv));
  transports.push(transport);
  return transport;
}

async function connect(transport: RecordingStdioTransport, era: ClientEra = '2025-11-25 (SDK 1.x)'): Promise<AnyClient> {
  const client = newClient(era, 'stdio test');
  await client.connect(transport);
  if (client instanceof Client) expect(protocolOf(client)).toBe(ERA_VERSION[era]);
  return client;
}

/** Ids, signatures, attribution tokens, times and the server origin differ between runs; everything else must not. */
function normalise(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/(?:imp_|prd_|req_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
      .replace(/sig=[A-Za-z0-9_-]+/g, 'sig=<sig>')
      .replace(/aisle_attr_[A-Za-z0-9_-]+/g, 'aisle_attr_<token>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, '<time>')
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, '<origin>')
      .replace(/"took_ms":[\d.]+/g, '"took_ms":0'),
  );
}

const outcome = (r: CallToolResult) => normalise({ isError: r.isError ?? false, structured: r.structuredContent, text: text(r) });

async function analytics(client: AnyClient): Promise<{ impressions: number; clicks: number }> {
  const result = await callTool(client, 'get_analytics', {});
  expect(result.isError, text(result)).toBeFalsy();
  return structured<{ metrics: { impressions: number; clicks: number } }>(result).metrics;
}

/** Every tool with valid and invalid input; the normalised answers. */
async function scenario(client: AnyClient): Promise<unknown[]> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
  const out: unknown[] = [tools.map((tool) => ({ name: tool.name, annotations: tool.annotations, input: tool.inputSchema, output: tool.outputSchema }))];
  const before = await analytics(client);
  const found = await callTool(client, 'search_products', { query: 'waterproof trail running shoes', limit: 3 });
  const { request_id, results } = SearchResponseSchema.parse(structured(found));
  expect(results.length).toBeGreaterThan(0);
  const first = results[0]!;
  const clicked = await callTool(client, 'record_click', { impression_id: first.impression_id });
  // A search and a click on one of its impressions show in get_analytics (the range ends now).
  await new Promise((r) => setTimeout(r, 5));
  const after = await analytics(client);
  out.push({ impressions: after.impressions - before.impressions, clicks: after.clicks - before.clicks });
  expect(after.impressions - before.impressions).toBe(results.length);
  expect(after.clicks - before.clicks).toBe(1);
  // Each call with its expected outcome: null for a result, else the problem code (docs/api.md).
  const calls: [string, Record<string, unknown>, string | null][] = [
    ['record_click', { impression_id: first.impression_id }, null],
    ['submit_feedback', { request_id, product_id: first.product_id, relevant: true, reason: 'fits' }, null],
    ['search_products', { query: '' }, 'validation_failed'],
    ['search_products', { query: 'tent', limt: 2 }, 'validation_failed'],
    ['search_products', { query: 'who won the 1998 world cup' }, null],
    ['record_click', { impression_id: '00000000-0000-4000-8000-000000000000' }, 'not_found'],
    ['record_click', { impression_id: 'not an id' }, 'validation_failed'],
    ['submit_feedback', { request_id, product_id: '00000000-0000-4000-8000-000000000000', relevant: false }, 'product_not_in_results'],
    ['submit_feedback', { request_id: '00000000-0000-4000-8000-000000000000', product_id: first.product_id, relevant: false }, 'not_found'],
    ['get_analytics', { metric: 'bounce_rate' }, 'validation_failed'],
    ['get_analytics', { start_date: '2026-11-02T00:00:00Z', end_date: '2026-11-01T00:00:00Z' }, 'validation_failed'],
  ];
  out.push(outcome(found), outcome(clicked));
  for (const [name, args, code] of calls) {
    const result = await callTool(client, name, args);
    if (code === null) expect(result.isError ?? false, `${name} ${JSON.stringify(args)}: ${text(result)}`).toBe(false);
    else expect(problem(result).code, `${name} ${JSON.stringify(args)}`).toBe(code);
    out.push(outcome(result));
  }
  return out;
}

beforeAll(async () => {
  dataDir = await seededDataDir('mcp-stdio');
  server = runTs('src/main.ts', [], childEnv(dataDir));
  [, adminKey] = (await server.waitForStderr(/API key, shown only now: (aisle_sk_[0-9A-Za-z]{36})\n/, 110_000)) as unknown as [string, string];
  [, base] = (await server.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 110_000)) as unknown as [string, string];
});

afterAll(async () => {
  for (const t of transports) await t.close().catch(() => undefined);
  server.proc.kill('SIGKILL');
});

describe('stdio MCP server (README commands)', () => {
  let remoteResults: unknown[];

  it('refuses to open a data directory the running server holds, and says how to reach that server instead', async () => {
    const transport = spawnFromReadme(inProcessSpec, { AISLE_API_KEY: adminKey, AISLE_DATA_DIR: dataDir });
    await transport.start();
    expect(await transport.exited).toBe(1);
    expect(transport.stderr).toMatch(/in use by process \d+/);
    expect(transport.stderr).toContain('AISLE_BASE_URL=');
    expect(transport.stdout).toBe('');
  }, 60_000);

  it('forwards every tool call to the running server over REST with AISLE_BASE_URL', async () => {
    const client = await connect(spawnFromReadme(remoteSpec, { AISLE_API_KEY: adminKey, AISLE_BASE_URL: `${base}/v1` }));
    remoteResults = await scenario(client);
    await client.close();
    // Stop the server: the embedded database is free for the in-process variant.
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 90_000);

  it('runs the core in-process with the same tool results, and writes nothing but JSON-RPC to stdout', async () => {
    const transport = spawnFromReadme(inProcessSpec, { AISLE_API_KEY: adminKey, AISLE_DATA_DIR: dataDir }, { LOG_LEVEL: 'debug' });
    const client = await connect(transport);
    expect(await scenario(client)).toEqual(remoteResults);

    for (let i = 0; i < 100; i++) {
      const args: [string, Record<string, unknown>] =
        i % 4 === 0
          ? ['record_click', { impression_id: 'nope' }]
          : ['search_products', { query: ['tent', 'kettle', 'yoga mat'][i % 3], limit: 1 + (i % 10), detail: i % 2 ? 'full' : 'compact' }];
      const result = await callTool(client, ...args);
      expect(result.isError ?? false).toBe(i % 4 === 0);
    }
    await client.close();
    expect(await transport.exited).toBe(0);

    const lines = transport.stdout.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(110);
    for (const line of lines) {
      const message = JSON.parse(line) as { jsonrpc?: string };
      expect(message.jsonrpc, line.slice(0, 200)).toBe('2.0');
    }
    const logs = transport.stderr.split('\n').filter((l) => l.startsWith('{'));
    expect(logs.some((l) => (JSON.parse(l) as { msg?: string }).msg === 'MCP server running the core in-process')).toBe(true);
  }, 180_000);

  it.each(['2026-07-28 (SDK 2)', '2025-06-18 (SDK 2)'] as const)(
    'gives a %s client the same tool results',
    async (era) => {
      const transport = spawnFromReadme(inProcessSpec, { AISLE_API_KEY: adminKey, AISLE_DATA_DIR: dataDir });
      const client = await connect(transport, era);
      expect(await scenario(client)).toEqual(remoteResults);
      await client.close();
      expect(await transport.exited).toBe(0);
      const lines = transport.stdout.split('\n').filter((l) => l !== '');
      expect(lines.length).toBeGreaterThan(10);
      for (const line of lines) expect((JSON.parse(line) as { jsonrpc?: string }).jsonrpc, line.slice(0, 200)).toBe('2.0');
    },
    120_000,
  );

  it('answers a 2026-07-28 client that only discovers, and ends, without opening the data directory', async () => {
    // What the throw-away copy of a version probe sees: server/discover, then stdin closed.
    const transport = spawnFromReadme(inProcessSpec, { AISLE_API_KEY: adminKey, AISLE_DATA_DIR: dataDir }, { LOG_LEVEL: 'info' });
    const client = await connect(transport, '2026-07-28 (SDK 2)');
    await client.close();
    expect(await transport.exited).toBe(0);
    const messages = transport.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { msg?: string }).msg);
    expect(messages, transport.stderr).toContain('MCP server shutting down');
    expect(messages).not.toContain('MCP server running the core in-process');
  }, 60_000);

  it('serves a 2026-07-28 client that first probes the version in a throw-away copy of the server', async () => {
    // versionNegotiation auto: the SDK spawns a sibling for server/discover and kills it (SIGKILL 1 s
    // after SIGTERM) before spawning the server it keeps; the sibling must not hold the database.
    const client = new Client({ name: 'stdio probe', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const transport = new StdioClientTransport({ ...readmeCommand(inProcessSpec, { AISLE_API_KEY: adminKey, AISLE_DATA_DIR: dataDir }), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const found = await callTool(client, 'search_products', { query: 'waterproof trail running shoes', limit: 2 });
    expect(found.isError, `${text(found)}\n${stderr}`).toBeFalsy();
    expect(SearchResponseSchema.parse(structured(found)).results.length).toBeGreaterThan(0);
    await client.close();
  }, 120_000);
});
