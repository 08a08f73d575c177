/**
 * Several machines, one catalog on object storage (docs/deployment.md, "Several machines"): the
 * catalog lives at `az://` in Azurite, Microsoft's Azure Storage emulator; an import runs on one
 * "machine" (a process with its own data folder), and API processes of two other machines (their
 * own data folders, one PostgreSQL) serve it. A new import reaches both without a restart while
 * they keep answering from the version they have, and an agent searching them throughout sees no
 * failure and no wait past a second more than usual; a killed process comes back and serves.
 *
 * Azurite is not a dependency (it brings about 370 packages): .ci/run installs it with the Azure
 * Storage SDK into a temporary folder and names it in AISLE_AZURITE_DIR. Without it the test
 * skips, saying so, unless AISLE_REQUIRE_AZURITE=1 (set by .ci/run), where it fails instead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestDb, type TestDb, usingRealPostgres } from '../helpers/db.js';
import { type Child, runToEnd, runTs, seededDataDir, tempDir } from '../helpers/process.js';

const AZURITE_DIR = process.env.AISLE_AZURITE_DIR ?? '';
const azuriteBin = join(AZURITE_DIR, 'node_modules', '.bin', 'azurite-blob');
const azurite = AZURITE_DIR !== '' && existsSync(azuriteBin);
const required = process.env.AISLE_REQUIRE_AZURITE === '1';
const skip = !usingRealPostgres() || (!azurite && !required);
if (usingRealPostgres() && !azurite) {
  console.warn(`${required ? 'FAILING' : 'SKIPPED'}: the multi-machine test needs Azurite in AISLE_AZURITE_DIR (.ci/run installs it)`);
}

// Azurite's well-known development account (public, documented by Microsoft; not a secret).
const ACCOUNT = 'devstoreaccount1';
const ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const CATALOG = 'az://aisle/catalog';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const percentile = (values: readonly number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;

/** One agent per base searching without pause until stopped: each answer's time, in order, and every failure. */
function steadyLoad(bases: readonly string[], key: string) {
  const latencies: number[] = [];
  const failures: string[] = [];
  const queries = ['espresso machine', 'trail running shoes', 'merino hiking socks', 'pour-over kettle'];
  let stopped = false;
  const agents = bases.map(async (base, i) => {
    for (let n = i; !stopped; n++) {
      const started = performance.now();
      try {
        const res = await fetch(`${base}/v1/search`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ query: queries[n % queries.length], limit: 5 }),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        if (res.status === 200) latencies.push(performance.now() - started);
        else failures.push(`${base}: ${res.status} ${text.slice(0, 300)}`);
      } catch (err) {
        failures.push(`${base}: ${String(err)} ${String((err as { cause?: unknown }).cause ?? '')}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  return {
    latencies,
    failures,
    stop: async () => {
      stopped = true;
      await Promise.all(agents);
    },
  };
}

describe.skipIf(skip)('several machines: one PostgreSQL, the catalog at az:// in Azurite', () => {
  let testDb: TestDb;
  let emulator: ChildProcess;
  let blobPort = 0;
  const children: Child[] = [];

  /** A machine's environment: its own data folder, the shared database and object-store catalog. */
  const machine = (dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    AISLE_DATA_DIR: dataDir,
    DATABASE_URL: testDb.url!,
    DATABASE_POOL_SIZE: '4',
    AISLE_CATALOG_URI: CATALOG,
    AISLE_SAMPLE_CATALOG: 'false',
    AISLE_CATALOG_REFRESH_MS: '500',
    AISLE_API_PROCESSES: '1',
    AZURE_STORAGE_USE_EMULATOR: 'true',
    AZURE_STORAGE_ACCOUNT_NAME: ACCOUNT,
    AZURE_STORAGE_ACCOUNT_KEY: ACCOUNT_KEY,
    AZURITE_BLOB_STORAGE_URL: `http://127.0.0.1:${blobPort}`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  });

  async function startApi(dataDir: string): Promise<{ child: Child; base: string }> {
    const child = runTs('src/main.ts', [], machine(dataDir, { LOG_LEVEL: 'info' }));
    children.push(child);
    const [, base] = await child.waitForStderr(/Aisle listening on (http:\/\/127\.0\.0\.1:\d+)/, 120_000);
    return { child, base: base! };
  }

  beforeAll(async () => {
    if (!azurite) throw new Error(`Azurite is not installed in AISLE_AZURITE_DIR (${AZURITE_DIR || 'unset'}), and AISLE_REQUIRE_AZURITE=1`);
    testDb = await createTestDb();
    blobPort = await freePort();
    emulator = spawn(
      azuriteBin,
      ['--blobHost', '127.0.0.1', '--blobPort', String(blobPort), '--location', tempDir('azurite'), '--silent', '--skipApiVersionCheck'],
      {
        stdio: 'ignore',
      },
    );
    // The container, made with Microsoft's own SDK (installed beside Azurite), as an operator would.
    const require = createRequire(join(AZURITE_DIR, 'node_modules', 'index.js'));
    const { BlobServiceClient } = require('@azure/storage-blob') as {
      BlobServiceClient: { fromConnectionString(c: string): { getContainerClient(name: string): { createIfNotExists(): Promise<unknown> } } };
    };
    const service = BlobServiceClient.fromConnectionString(
      `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${ACCOUNT_KEY};BlobEndpoint=http://127.0.0.1:${blobPort}/${ACCOUNT};`,
    );
    await vi.waitFor(() => service.getContainerClient('aisle').createIfNotExists(), { timeout: 30_000, interval: 250 });
  }, 120_000);

  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    emulator?.kill('SIGKILL');
    await testDb?.cleanup();
  });

  it('imports on one machine, serves from two others, follows a new import without restart, and survives a killed process', { timeout: 300_000 }, async () => {
    // Machine A imports; nothing of the catalog is on any machine's disk.
    const importer = await seededDataDir('machine-a', { catalog: false });
    const first = await runToEnd('tools/cli/ingest.ts', ['data/sample-catalog.jsonl', '--replace'], machine(importer));
    expect(first.code, first.stderr).toBe(0);

    const [dirB, dirC] = await Promise.all([seededDataDir('machine-b', { catalog: false }), seededDataDir('machine-c', { catalog: false })]);
    const b = await startApi(dirB);
    const c = await startApi(dirC);
    // B started first on the empty database, so B made the default account and printed its key.
    const [, key] = await b.child.waitForStderr(/admin API key, shown only now: (\S+)/);
    const searchBody = async (base: string, query: string) => {
      const res = await fetch(`${base}/v1/search`, {
        method: 'POST',
        headers: { 'x-api-key': key!, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 5, min_relevance_score: 0 }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as { results: { product_id: string; title: string; price_amount: number | null }[]; metadata: { ranking_model: string } };
    };
    const search = async (base: string, query: string) => (await searchBody(base, query)).results;
    const rankingModel = async (base: string) => (await searchBody(base, 'espresso machine')).metadata.ranking_model;
    const ranked = async (base: string, query: string) => (await search(base, query)).map((r) => r.product_id);
    for (const query of ['espresso machine', 'trail running shoes', 'merino hiking socks']) {
      const fromB = await ranked(b.base, query);
      expect(fromB.length).toBeGreaterThan(0);
      expect(await ranked(c.base, query)).toEqual(fromB);
    }

    // The cold-start model names the catalog it was fitted on.
    const fittedOn = async (base: string) => Number(/^cold-start \(catalog (\d+) products/.exec(await rankingModel(base))?.[1]);
    const before = await fittedOn(b.base);
    expect(before).toBeGreaterThan(100);

    // From here on an agent searches both machines without pause (its own key, so the test's
    // checks and the load share no rate limit). What it sees while other machines import, apply
    // deltas and fit the model again: no failed request, none more than a second slower than usual.
    const created = await fetch(`${b.base}/v1/keys`, {
      method: 'POST',
      headers: { 'x-api-key': key!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'steady load', scopes: ['search'], rate_limit_per_minute: 100_000 }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const load = steadyLoad([b.base, c.base], ((await created.json()) as { key: string }).key);
    // Stopped however the test ends, so a failing check leaves no agent searching killed servers.
    onTestFinished(() => load.stop());
    await new Promise((r) => setTimeout(r, 4_000));
    const steady = load.latencies.length;

    // A second import on machine A adds one product: both servers serve it with the version, and
    // the import keeps the ranking model (one product does not warrant a fit).
    const extra = join(tempDir('import-2'), 'more.jsonl');
    writeFileSync(
      extra,
      `${JSON.stringify({ sku: 'AURORA-1', title: 'Aurora Gooseneck Pour-Over Kettle', price: 59, currency: 'USD', merchant: 'Aurora Goods', category: 'Kitchen > Coffee' })}\n`,
    );
    const second = await runToEnd('tools/cli/ingest.ts', [extra], machine(importer));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/Ranking model: kept cold-start \(catalog \d+ products.*1 of \d+ products changed/);
    const kettle = async (base: string) => (await search(base, 'aurora gooseneck pour-over kettle')).map((r) => r.title);
    await vi.waitFor(async () => expect(await kettle(b.base)).toContain('Aurora Gooseneck Pour-Over Kettle'), { timeout: 30_000, interval: 250 });
    await vi.waitFor(async () => expect(await kettle(c.base)).toContain('Aurora Gooseneck Pour-Over Kettle'), { timeout: 30_000, interval: 250 });
    expect(await fittedOn(b.base)).toBe(before);

    // Another, told to fit the model again: both servers pick the model up with the version.
    writeFileSync(extra, `${JSON.stringify({ sku: 'AURORA-2', title: 'Aurora Glass Coffee Carafe', price: 25, currency: 'USD', merchant: 'Aurora Goods' })}\n`);
    const refit = await runToEnd('tools/cli/ingest.ts', [extra, '--refit'], machine(importer));
    expect(refit.code, refit.stderr).toBe(0);
    for (const base of [b.base, c.base]) {
      await vi.waitFor(async () => expect(await fittedOn(base)).toBe(before + 2), { timeout: 30_000, interval: 250 });
    }

    // A price change alone: applied without embedding, on both machines within their refresh.
    writeFileSync(
      extra,
      `${JSON.stringify({ sku: 'AURORA-1', title: 'Aurora Gooseneck Pour-Over Kettle', price: 39, currency: 'USD', merchant: 'Aurora Goods', category: 'Kitchen > Coffee' })}\n`,
    );
    const delta = await runToEnd('tools/cli/ingest.ts', [extra, '--json'], machine(importer));
    expect(delta.code, delta.stderr).toBe(0);
    expect(JSON.parse(delta.stdout.trim().split('\n').at(-1)!)).toMatchObject({ delta: 1, embedded: 0 });
    const kettlePrice = async (base: string) =>
      (await search(base, 'aurora gooseneck pour-over kettle')).find((r) => r.title.startsWith('Aurora'))?.price_amount;
    for (const base of [b.base, c.base]) await vi.waitFor(async () => expect(await kettlePrice(base)).toBe(39), { timeout: 30_000, interval: 250 });
    expect(await fittedOn(c.base)).toBe(before + 2);

    // A publisher policy set through machine B reaches machine C's searches within 10 s.
    const setPolicy = async (body: unknown) => {
      const res = await fetch(`${b.base}/v1/policy`, {
        method: 'PUT',
        headers: { 'x-api-key': key!, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    };
    const policySet = Date.now();
    await setPolicy({ excluded_merchants: ['Aurora Goods'] });
    await vi.waitFor(async () => expect(await kettle(c.base)).not.toContain('Aurora Gooseneck Pour-Over Kettle'), { timeout: 10_000, interval: 200 });
    console.log(`[measure] a policy set on machine B applied on machine C after ${Date.now() - policySet} ms`);
    await setPolicy({});
    await vi.waitFor(async () => expect(await kettle(c.base)).toContain('Aurora Gooseneck Pour-Over Kettle'), { timeout: 10_000, interval: 200 });

    await load.stop();
    expect(load.failures).toEqual([]);
    const usual = percentile(load.latencies.slice(0, steady), 0.99);
    const during = load.latencies.slice(steady);
    expect(during.length).toBeGreaterThan(steady);
    expect(Math.max(...during), `steady p99 ${usual.toFixed(0)} ms over ${steady} searches; ${during.length} searches since`).toBeLessThan(usual + 1_000);

    // Machine B's process is killed and started again on its own folder: it serves the current catalog.
    b.child.proc.kill('SIGKILL');
    await b.child.exited;
    const again = await startApi(dirB);
    expect(await kettle(again.base)).toContain('Aurora Gooseneck Pour-Over Kettle');
    expect(await ranked(again.base, 'espresso machine')).toEqual(await ranked(c.base, 'espresso machine'));
  });
});
