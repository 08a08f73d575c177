/**
 * Catalog changes under load (docs/deployment.md, "How catalog updates reach running processes"):
 * `npm run bench:refresh`. A server started as `npm start` starts serves a synthetic catalog while
 * agents search it without pause; one-product imports, price deltas and imports that fit the
 * ranking model again land through `npm run ingest`, each awaited until a search shows it. The
 * figures: failed searches, p50/p99/max before and during the changes, and each kind's time from
 * the command's start to served. Reports BENCH_JSON for BENCHMARKS.md.
 */
// First, so that the command line is checked before anything else loads.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { REPO_ROOT } from '../repo-root.js';
import { createBenchDatabase, startServerProcess } from './deployment.js';
import { syntheticCatalog } from './gen-catalog.js';
import { cleanUpOnSignal, formatTable, median, percentile, round } from './lib.js';
import { cli } from './refresh.command.js';

const products = cli.number('products', { integer: true, positive: true, default: 3_000 });
const changes = cli.number('changes', { integer: true, positive: true, default: 20 });
const agents = cli.number('agents', { integer: true, positive: true, default: 2 });
const steadySeconds = cli.number('steady', { positive: true, default: 20 });

type Kind = 'import' | 'delta' | 'refit';
/** In each ten changes: six one-product imports, three price deltas, one import that fits the model again. */
const KINDS: readonly Kind[] = ['import', 'delta', 'import', 'import', 'delta', 'import', 'import', 'delta', 'import', 'refit'];

/** `npm run ingest` as its npm script runs it; resolves with its output, rejects on a non-zero exit. */
function ingest(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/launcher/run.mjs', 'tools/cli/ingest.ts', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`npm run ingest -- ${args.join(' ')} exited with ${code}:\n${out}`))));
  });
}

interface Answer {
  at: number;
  ms: number;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'aisle-bench-refresh-'));
  const { databaseUrl } = loadConfig();
  const database = databaseUrl ? await createBenchDatabase(databaseUrl, 'aisle_refresh_bench') : null;
  const env: Record<string, string> = {
    AISLE_DATA_DIR: join(work, 'data'),
    AISLE_SAMPLE_CATALOG: 'false',
    AISLE_CATALOG_REFRESH_MS: '500',
    AISLE_API_PROCESSES: database ? '2' : '1',
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  const childEnv = { ...process.env, ...env, LOG_LEVEL: 'warn' };
  let server: Awaited<ReturnType<typeof startServerProcess>> | null = null;
  const cleanup = async () => {
    await server?.close();
    await database?.drop();
    await rm(work, { recursive: true, force: true });
  };
  const removeSignal = cleanUpOnSignal(cleanup);
  let stopAgents = () => {};
  try {
    // The embedding model is kept in the data folder's models/; --cache-dir lends one already built.
    await mkdir(env.AISLE_DATA_DIR!, { recursive: true });
    if (cli.values['cache-dir']) await symlink(resolve(cli.values['cache-dir']), join(env.AISLE_DATA_DIR!, 'models'));
    const feed = join(work, 'catalog.jsonl');
    const lines: string[] = [];
    for await (const row of syntheticCatalog(products, 42)) lines.push(JSON.stringify(row));
    await writeFile(feed, `${lines.join('\n')}\n`);
    process.stderr.write(`bench:refresh: importing ${products} products\n`);
    await ingest([feed, '--replace'], childEnv);
    server = await startServerProcess(env);
    const { url } = server;
    const created = await fetch(`${url}/v1/keys`, {
      method: 'POST',
      headers: { 'x-api-key': server.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench:refresh', scopes: ['search'], rate_limit_per_minute: 1_000_000 }),
    });
    if (created.status !== 201) throw new Error(`creating the load's key answered ${created.status}: ${await created.text()}`);
    const key = ((await created.json()) as { key: string }).key;
    const search = async (query: string) => {
      const res = await fetch(`${url}/v1/search`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 5, min_relevance_score: 0 }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 300)}`);
      return JSON.parse(text) as { results: { title: string; price_amount: number | null }[]; metadata: { ranking_model: string } };
    };

    // The agents: searches without pause, every answer's time and every failure kept.
    const answers: Answer[] = [];
    const failures: string[] = [];
    let stopped = false;
    stopAgents = () => {
      stopped = true;
    };
    const queries = ['espresso machine', 'trail running shoe', 'garden hose', 'cordless drill', 'dog bed', 'face serum', 'sleeping bag'];
    const loops = Array.from({ length: agents }, async (_, a) => {
      for (let n = a; !stopped; n++) {
        const started = performance.now();
        try {
          await search(queries[n % queries.length]!);
          answers.push({ at: Date.now(), ms: performance.now() - started });
        } catch (err) {
          failures.push(String(err));
        }
      }
    });
    await new Promise((r) => setTimeout(r, steadySeconds * 1000));
    const changesFrom = Date.now();

    const served: Record<Kind, number[]> = { import: [], delta: [], refit: [] };
    const one = join(work, 'one.jsonl');
    for (let i = 0; i < changes; i++) {
      const kind = KINDS[i % KINDS.length]!;
      const started = performance.now();
      const title = `Aurora Bench Kettle ${i}`;
      // A delta changes the price of the product the last import added.
      const price = kind === 'delta' ? 100 + i : 59;
      const sku = kind === 'delta' ? `AURORA-${i - 1}` : `AURORA-${i}`;
      const product = { sku, title: kind === 'delta' ? `Aurora Bench Kettle ${i - 1}` : title, price, currency: 'USD', merchant: 'Aurora Goods' };
      await writeFile(one, `${JSON.stringify(product)}\n`);
      const modelBefore = (await search('espresso machine')).metadata.ranking_model;
      await ingest([one, ...(kind === 'refit' ? ['--refit'] : [])], childEnv);
      // Served: the product found (at its new price), and after a refit the new model named.
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`change ${i + 1} (${kind}) was not served within 120 s of its import`);
        const found = await search(product.title);
        const hit = found.results.find((r) => r.title === product.title);
        const modelMoved = kind !== 'refit' || found.metadata.ranking_model !== modelBefore;
        if (hit && hit.price_amount === price && modelMoved) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      served[kind].push(performance.now() - started);
      process.stderr.write(`bench:refresh: change ${i + 1}/${changes} (${kind}) served in ${round((performance.now() - started) / 1000, 1)} s\n`);
    }
    const changesTo = Date.now();
    stopped = true;
    await Promise.all(loops);

    const before = answers.filter((a) => a.at < changesFrom).map((a) => a.ms);
    const during = answers.filter((a) => a.at >= changesFrom && a.at <= changesTo).map((a) => a.ms);
    const stats = (ms: number[]) => ({
      searches: ms.length,
      p50_ms: round(percentile(ms, 50), 1),
      p99_ms: round(percentile(ms, 99), 1),
      max_ms: round(Math.max(...ms), 1),
    });
    const json = {
      bench: 'refresh',
      products,
      changes,
      agents,
      api_processes: Number(env.AISLE_API_PROCESSES),
      database: database ? 'postgresql' : 'pglite',
      failed: failures.length,
      steady: stats(before),
      during: stats(during),
      p99_over_steady_ms: round(percentile(during, 99) - percentile(before, 99), 1),
      served_median_s: Object.fromEntries(Object.entries(served).map(([k, v]) => [k, v.length > 0 ? round(median(v) / 1000, 1) : null])),
    };
    process.stdout.write(
      `${formatTable(
        ['', 'searches', 'p50 ms', 'p99 ms', 'max ms'],
        [
          ['steady', ...Object.values(json.steady).map(String)],
          [`during ${changes} changes`, ...Object.values(json.during).map(String)],
        ],
      )}\nfailed searches: ${json.failed}${failures.length > 0 ? ` (first: ${failures[0]})` : ''}\nserved (median, command start to found): ${Object.entries(
        json.served_median_s,
      )
        .map(([k, v]) => `${k} ${v} s`)
        .join(', ')}\n`,
    );
    process.stdout.write(`BENCH_JSON ${JSON.stringify(json)}\n`);
  } finally {
    // The agents stop with the bench, whichever way it ends.
    stopAgents();
    removeSignal();
    await cleanup();
  }
}

await main();
