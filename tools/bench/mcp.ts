/**
 * What does MCP add to a search? `search_products` latency over stdio and over Streamable HTTP
 * against REST `POST /v1/search`, in the same run, on the sample catalog, one call at a time:
 *
 *   npm run bench:mcp -- [--calls 200] [--rounds 3] [--limit 10]
 *
 * - REST: POST /v1/search (undici, keep-alive) to a server in this process.
 * - MCP HTTP: the SDK client's tools/call to POST /mcp on the same server (a new MCP server and
 *   transport per request, as served).
 * - MCP stdio: the SDK client driving `node src/mcp/bin.js` (the README command) with the core
 *   in that process, on its own PGlite database and the same catalog directory.
 * - MCP stdio → REST: the same command with AISLE_BASE_URL pointing at the server in this process.
 * Paths alternate call by call in every round, so drift on a shared machine hits all alike.
 * Prints median and p99 per path and each median's ratio to REST's.
 */
// First, so that the command line is checked before anything else loads (mcp.command.ts).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { request } from 'undici';
import { readFeed } from '../../src/catalog/files/detect.js';
import { importCatalog } from '../../src/core/catalog/import.js';
import { systemClock } from '../../src/core/clock.js';
import { createCore } from '../../src/core/index.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { createLogger } from '../../src/logger.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { createPgStores, migrate, openDb } from '../../src/store/pg/index.js';
import { REPO_ROOT as ROOT } from '../repo-root.js';
import { createBenchKey, formatTable, median, percentile, round, startBenchServer } from './lib.js';
import { cli } from './mcp.command.js';

const RATE_LIMIT = 1_000_000;
const QUERIES = [
  'waterproof trail running shoes',
  'noise cancelling headphones',
  'cast iron skillet',
  'yoga mat',
  'gift for a coffee lover',
  'kids bike helmet',
  'stainless steel water bottle',
  'ergonomic office chair',
  'camping tent for two',
  'wireless phone charger',
];

const calls = cli.number('calls', { integer: true, positive: true, default: 200 });
const rounds = cli.number('rounds', { integer: true, positive: true, default: 3 });
const limit = cli.number('limit', { integer: true, positive: true, default: 10 });

type Path = { name: string; search(query: string): Promise<void> };

async function mcpClient(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function mcpPath(name: string, client: Client): Path {
  return {
    name,
    search: async (query) => {
      const result = await client.callTool({ name: 'search_products', arguments: { query, limit, min_relevance_score: 0 } });
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    },
  };
}

/** A PGlite data dir with one account for the stdio child; closed again so the child can open it. */
async function prepareChildDataDir(): Promise<{ dataDir: string; key: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aisle-bench-mcp-'));
  const db = await openDb({ kind: 'pglite', dataDir });
  await migrate(db);
  const core = createCore({ stores: createPgStores(db), clock: systemClock, logger: createLogger('warn'), defaultRateLimitPerMinute: RATE_LIMIT });
  const key = await createBenchKey(core, RATE_LIMIT, 'bench stdio');
  await db.close();
  return { dataDir, key };
}

async function main(): Promise<void> {
  const started = performance.now();
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(mkdtempSync(join(tmpdir(), 'aisle-bench-models-')), 'models') });
  const catalogUri = join(mkdtempSync(join(tmpdir(), 'aisle-bench-catalog-')), 'catalog');
  const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: catalogUri, annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
  const feed = await readFeed(join(ROOT, 'data/sample-catalog.jsonl'), {});
  const imported = await importCatalog(feed.records, { catalog, embedder }, { replace: true, dryRun: false });

  const server = await startBenchServer({ search: { catalog, embedder } });
  await server.core.search().warm();
  const key = await createBenchKey(server.core, RATE_LIMIT);
  const child = await prepareChildDataDir();
  // The SDK adds PATH, HOME and the like to a stdio server's environment (getDefaultEnvironment).
  const stdioEnv = (extra: Record<string, string>) => ({ LOG_LEVEL: 'warn', ...extra });

  const http = await mcpClient(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  const stdio = await mcpClient(
    new StdioClientTransport({
      command: 'node',
      args: [join(ROOT, 'src/mcp/bin.js')],
      env: stdioEnv({
        AISLE_API_KEY: child.key,
        AISLE_DATA_DIR: child.dataDir,
        AISLE_CATALOG_URI: catalogUri,
        AISLE_SAMPLE_CATALOG: 'false',
        AISLE_WEBHOOK_WORKER: 'false',
      }),
      stderr: 'inherit',
    }),
  );
  const stdioRemote = await mcpClient(
    new StdioClientTransport({
      command: 'node',
      args: [join(ROOT, 'src/mcp/bin.js')],
      env: stdioEnv({ AISLE_API_KEY: key, AISLE_BASE_URL: `${server.url}/v1` }),
      stderr: 'inherit',
    }),
  );

  const paths: Path[] = [
    {
      name: 'REST POST /v1/search',
      search: async (query) => {
        const res = await request(`${server.url}/v1/search`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ query, limit, min_relevance_score: 0 }),
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`REST answered ${res.statusCode}`);
      },
    },
    mcpPath('MCP Streamable HTTP (/mcp)', http),
    mcpPath('MCP stdio, core in-process', stdio),
    mcpPath('MCP stdio → REST (AISLE_BASE_URL)', stdioRemote),
  ];
  const times = new Map(paths.map((p) => [p.name, [] as number[]]));

  // Warm-up: first calls pay for JIT, connections, the child's caches.
  for (let i = 0; i < 20; i++) for (const p of paths) await p.search(QUERIES[i % QUERIES.length]!);
  const perRound = Math.ceil(calls / rounds);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < perRound; i++) {
      const query = QUERIES[(r * perRound + i) % QUERIES.length]!;
      for (const p of paths) {
        const t0 = performance.now();
        await p.search(query);
        times.get(p.name)!.push(performance.now() - t0);
      }
    }
  }

  const restMedian = median(times.get(paths[0]!.name)!);
  const rows = paths.map((p) => {
    const xs = times.get(p.name)!;
    return [p.name, String(xs.length), round(median(xs), 2).toString(), round(percentile(xs, 99), 2).toString(), round(median(xs) / restMedian, 2).toString()];
  });
  process.stdout.write(
    `search_products vs POST /v1/search, limit ${limit}, sample catalog (${imported.catalog?.productCount ?? '?'} products), PGlite, one call at a time\n`,
  );
  process.stdout.write(`${formatTable(['path', 'calls', 'median ms', 'p99 ms', 'median / REST'], rows)}\n`);
  process.stdout.write(`(${round((performance.now() - started) / 1000, 1)} s in all)\n`);

  await Promise.all([http.close(), stdio.close(), stdioRemote.close()]);
  await server.close();
  await catalog.close();
  await embedder.close();
}

await cli.run(main);
