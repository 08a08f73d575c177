/**
 * A deployment-shaped target for the load and soak benches: a throwaway database on a real
 * PostgreSQL server, a catalog directory, and `src/main.ts` as its own process (the way
 * `npm start` runs), so the load generator never shares a thread with the server and the
 * server's RSS is its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ingestCatalog } from '../../src/core/catalog/ingest.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { readFeed } from '../../src/ingest/formats/detect.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { syntheticCatalog } from '../gen-catalog.js';
import { sharedPath } from './shared-data.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database `<prefix>_*` beside the one DATABASE_URL names, dropped afterwards. */
export async function createBenchDatabase(serverUrl: string, prefix = 'aisle_scale_bench'): Promise<BenchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * Makes sure `uri` holds a catalog: the Home Depot products from ../shared when present (about
 * 2.5 minutes of embedding on two cores), else 54,667 synthetic ones. Returns what was used.
 */
export async function ensureCatalog(uri: string, modelsDir: string): Promise<string> {
  const catalog = await LanceCatalogStore.open({ uri, annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
  try {
    const existing = await catalog.info();
    if (existing) return `existing catalog at ${uri}`;
    const products = sharedPath('data/eval/homedepot/products.jsonl');
    if (!products) process.stderr.write('../shared/data/eval/homedepot is absent: using the synthetic generator (npm run gen-catalog) instead\n');
    process.stderr.write(`importing ${products ?? '54,667 synthetic products'} into ${uri} (a few minutes)…\n`);
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: modelsDir });
    try {
      const records = products
        ? (await readFeed(products, {})).records
        : (async function* () {
            let line = 0;
            for await (const row of syntheticCatalog(54_667, 7)) yield { line: ++line, row };
          })();
      await ingestCatalog(records, { catalog, embedder }, { replace: true, dryRun: false });
    } finally {
      await embedder.close();
    }
    return products ? 'Home Depot (../shared/data/eval/homedepot/products.jsonl)' : 'synthetic (tools/gen-catalog.ts, seed 7)';
  } finally {
    await catalog.close();
  }
}

export interface ServerProcess {
  url: string;
  /** The default account's admin key, read from the first-start line on stderr. */
  adminKey: string;
  pid: number;
  /** Resident set size of the server process, from /proc (Linux); null elsewhere. */
  rssBytes(): number | null;
  /** CPU time (user + system, every thread) the server process has used so far, from /proc; null elsewhere. */
  cpuSeconds(): number | null;
  stderr(): string;
  close(): Promise<void>;
  /** Wall-clock time the process exited, once it has. */
  exitedAt(): number | null;
}

/** Starts `src/main.ts` with `env` (and node flags such as --cpu-prof) on an ephemeral port; resolves once it listens. */
export async function startServerProcess(env: Record<string, string>, options: { nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    // Keep the start-up lines and the latest output, not hours of it.
    err = err.length > 200_000 ? err.slice(0, 20_000) + err.slice(-100_000) + d.toString() : err + d.toString();
  });
  let exitedAt: number | null = null;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitedAt = Date.now();
      resolve(code);
    }),
  );
  const ready = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within ${timeoutMs} ms:\n${err}`)), timeoutMs);
    const check = () => {
      const key = err.match(/shown only now: (aisle_sk_[0-9A-Za-z]{36})/)?.[1];
      const url = err.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
      if (key && url) {
        clearTimeout(timer);
        resolve({ url, key });
      }
    };
    child.stderr!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${err}`));
    });
  });
  const pid = child.pid!;
  return {
    url: ready.url,
    adminKey: ready.key,
    pid,
    stderr: () => err,
    exitedAt: () => exitedAt,
    rssBytes: () => {
      try {
        const kb = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)?.[1];
        return kb ? Number(kb) * 1024 : null;
      } catch {
        return null;
      }
    },
    cpuSeconds: () => {
      try {
        // Fields 14 and 15 of /proc/PID/stat, after the parenthesised command name, in clock ticks (100 Hz on Linux).
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        return null;
      }
    },
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
