/**
 * Search latency with the catalog on object storage, beside a local-disk catalog in the same run:
 * `npm run bench:object-store -- --azurite DIR [--latency-ms 20] [--queries 150] [--products FILE]`.
 *
 * DIR holds Azurite and the Azure Storage SDK (`npm install --prefix DIR azurite@3.35.0
 * @azure/storage-blob@12.32.0`; .ci/run installs the same for the multi-machine test). The bench
 * starts Azurite on 127.0.0.1, puts a proxy in front of it that holds every request `--latency-ms`
 * before passing it on (about a same-region S3 GET at 20 ms), imports the same products into a
 * local directory and into `az://` through the proxy, and serves each from an API server of its
 * own (`npm run ingest`, then `npm start`, each with its own data folder). One client alternates
 * between the two in three rounds of `--queries` searches after a warm-up; it reports p50/p99
 * per catalog, the ratio, and how many store requests a search made and what they read.
 * Products: the sample catalog (data/sample-catalog.jsonl) unless `--products` names a feed.
 */
// First, so that the command line is checked before anything else loads (object-store.command.ts).

import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../../src/cli/errors.js';
import { REPO_ROOT } from '../repo-root.js';
import { type ServerProcess, startServerProcess } from './deployment.js';
import { cleanUpOnSignal, formatTable, percentile, round } from './lib.js';
import { cli } from './object-store.command.js';

const { values } = cli;
const LATENCY_MS = cli.number('latency-ms', { default: 20 });
const QUERIES = cli.number('queries', { integer: true, positive: true, default: 150 });
const AZURITE_DIR = cli.check(() => {
  if (!values.azurite) throw new UsageError('--azurite DIR is required (a folder with azurite and @azure/storage-blob installed)');
  return resolve(values.azurite);
});
// Azurite's well-known development account (published by Microsoft; not a secret).
const ACCOUNT = 'devstoreaccount1';
const ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const QUERY_WORDS = ['espresso machine', 'trail running shoes', 'merino socks', 'cordless drill', 'rain jacket', 'camping tent', 'desk lamp', 'kitchen knife'];

const listen = (server: Server) => new Promise<number>((done) => server.listen(0, '127.0.0.1', () => done((server.address() as { port: number }).port)));

/** A port free now: listened on, then closed (Azurite takes a port, not 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((done) => server.close(done));
  return port;
}

/** What a store request reads, with ids and version numbers taken out: `GET products.lance/data/*.lance`. */
const requestKind = (method: string | undefined, url: string | undefined) =>
  `${method} ${(url ?? '')
    .split('?')[0]!
    .replace(/^\/[^/]+\/[^/]+\/[^/]+\//, '')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-z]{20,}|\d+/g, '*')}`;

/** Passes every request on to `port` after `delayMs`, counting them by kind. */
function latencyProxy(port: number, delayMs: number): { server: Server; requests: () => number; kinds: Map<string, number> } {
  let count = 0;
  const kinds = new Map<string, number>();
  const server = createServer((req, res) => {
    count += 1;
    const kind = requestKind(req.method, req.url);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    setTimeout(() => {
      const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }, delayMs);
  });
  return { server, requests: () => count, kinds };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-object-store-'));
  const blobPort = await freePort();
  const azurite = spawn(
    join(AZURITE_DIR, 'node_modules', '.bin', 'azurite-blob'),
    ['--blobHost', '127.0.0.1', '--blobPort', String(blobPort), '--location', join(work, 'azurite'), '--silent', '--skipApiVersionCheck'],
    { stdio: 'ignore' },
  );
  const servers: ServerProcess[] = [];
  const stopWatching = cleanUpOnSignal(async () => {
    for (const server of servers) await server.close();
    azurite.kill('SIGKILL');
    await rm(work, { recursive: true, force: true });
  });
  try {
    const proxy = latencyProxy(blobPort, LATENCY_MS);
    const proxyPort = await listen(proxy.server);
    const require = createRequire(join(AZURITE_DIR, 'node_modules', 'index.js'));
    const { BlobServiceClient } = require('@azure/storage-blob') as {
      BlobServiceClient: { fromConnectionString(c: string): { getContainerClient(name: string): { createIfNotExists(): Promise<unknown> } } };
    };
    const connection = `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${ACCOUNT_KEY};BlobEndpoint=http://127.0.0.1:${blobPort}/${ACCOUNT};`;
    const container = BlobServiceClient.fromConnectionString(connection).getContainerClient('aisle');
    // Azurite takes a moment to listen.
    for (let attempt = 0; ; attempt++) {
      try {
        await container.createIfNotExists();
        break;
      } catch (err) {
        if (attempt > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    // LanceDB's object store reads these itself, in the processes below; the emulator URL is the
    // proxy, so every store request pays the latency.
    const azure = {
      AZURE_STORAGE_USE_EMULATOR: 'true',
      AZURE_STORAGE_ACCOUNT_NAME: ACCOUNT,
      AZURE_STORAGE_ACCOUNT_KEY: ACCOUNT_KEY,
      AZURITE_BLOB_STORAGE_URL: `http://127.0.0.1:${proxyPort}`,
    };
    const catalogs: [string, string][] = [
      ['local', join(work, 'local', 'catalog')],
      ['az:// +latency', 'az://aisle/bench-catalog'],
    ];
    try {
      for (const [i, [, uri]] of catalogs.entries()) {
        // Each "machine" imports into its catalog with npm run ingest, then serves it with npm start.
        // Each machine keeps its own embedded database whatever DATABASE_URL the caller has (an empty
        // value is none; bench:report passes one to the benches that use PostgreSQL): the bench
        // measures the catalog's store, and a shared database that already holds an account would
        // start the servers without the admin key they are searched with.
        const env = { AISLE_DATA_DIR: join(work, `machine-${i}`), AISLE_CATALOG_URI: uri, DATABASE_URL: '', ...azure };
        const code = await new Promise<number | null>((done) =>
          spawn(process.execPath, ['src/launcher/run.mjs', 'tools/cli/ingest.ts', resolve(values.products!), '--replace'], {
            cwd: REPO_ROOT,
            env: { ...process.env, ...env },
            stdio: 'ignore',
          }).on('exit', done),
        );
        if (code !== 0) throw new Error(`importing ${values.products} into ${uri} exited with ${code}`);
        servers.push(await startServerProcess({ ...env, AISLE_SAMPLE_CATALOG: 'false', AISLE_API_PROCESSES: '1', AISLE_DEFAULT_RATE_LIMIT: '1000000' }));
      }
      await measure(
        servers,
        catalogs.map(([name]) => name),
        proxy,
      );
    } finally {
      for (const server of servers) await server.close();
      proxy.server.close();
    }
  } finally {
    stopWatching();
    azurite.kill('SIGKILL');
    await rm(work, { recursive: true, force: true });
  }
}

/** One client alternating between the servers in three rounds, after a warm-up. */
async function measure(
  servers: readonly ServerProcess[],
  names: readonly string[],
  store: { requests: () => number; kinds: Map<string, number> },
): Promise<void> {
  let n = 0;
  const searchOnce = async (i: number) => {
    n += 1;
    const t0 = performance.now();
    const res = await fetch(`${servers[i]!.url}/v1/search`, {
      method: 'POST',
      headers: { 'x-api-key': servers[i]!.adminKey, 'content-type': 'application/json' },
      // A query text of its own each time, so the embedder's cache measures nothing.
      body: JSON.stringify({ query: `${QUERY_WORDS[n % QUERY_WORDS.length]} ${n}`, limit: 5 }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`search answered ${res.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 30; i++) for (const s of [0, 1]) await searchOnce(s);
  const kindsBefore = new Map(store.kinds);
  const times: number[][] = [[], []];
  let azRequests = 0;
  for (let round = 0; round < 3; round++) {
    for (const s of [0, 1]) {
      const before = store.requests();
      for (let q = 0; q < QUERIES; q++) times[s]!.push(await searchOnce(s));
      if (s === 1) azRequests += store.requests() - before;
    }
  }
  // The figures once, as bench:report reads them (BENCH_JSON below), and printed from them.
  const summary = {
    bench: 'object-store',
    products: values.products,
    store_latency_ms: LATENCY_MS,
    searches_per_catalog: 3 * QUERIES,
    catalogs: Object.fromEntries(times.map((t, i) => [names[i]!, { p50_ms: round(percentile(t, 50)), p99_ms: round(percentile(t, 99)) }])),
    p50_ratio: round(percentile(times[1]!, 50) / percentile(times[0]!, 50)),
    store_requests_per_search: round(azRequests / (3 * QUERIES)),
  };
  const rows = Object.entries(summary.catalogs).map(([name, c]) => [name, String(3 * QUERIES), String(c.p50_ms), String(c.p99_ms)]);
  process.stdout.write(`bench:object-store: ${values.products}, store latency ${LATENCY_MS} ms per request, ${QUERIES} searches x 3 rounds per catalog\n`);
  process.stdout.write(`${formatTable(['catalog', 'searches', 'p50 ms', 'p99 ms'], rows)}\n`);
  process.stdout.write(`ratio p50 az:// / local: ${summary.p50_ratio}x; store requests per search: ${summary.store_requests_per_search}\n`);
  const measured = [...store.kinds].map(([kind, n]) => [kind, n - (kindsBefore.get(kind) ?? 0)] as const).filter(([, n]) => n > 0);
  if (measured.length > 0) {
    process.stdout.write(
      `store requests during the measured rounds, by what they read:\n${formatTable(
        ['request', 'count'],
        measured.sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, String(n)]),
      )}\n`,
    );
  }
  process.stdout.write(`BENCH_JSON ${JSON.stringify(summary)}\n`);
}

await cli.run(main);
