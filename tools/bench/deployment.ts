/**
 * A deployment-shaped target for the load and soak benches: a throwaway database on a real
 * PostgreSQL server, a catalog directory, and `src/main.ts` as its own process (the way
 * `npm start` runs), so the load generator never shares a thread with the server and the
 * server's RSS is its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { importCatalog } from '../../src/core/catalog/import.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { REPO_ROOT } from '../repo-root.js';
import { sharedPath } from '../shared-data.js';
import { benchCatalogRecords } from './bench-catalog.js';

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
  const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
  try {
    const existing = await catalog.info();
    if (existing) return `existing catalog at ${uri}`;
    const products = sharedPath('data/eval/homedepot/products.jsonl');
    if (!products) process.stderr.write('../shared/data/eval/homedepot is absent: using the synthetic generator (npm run gen-catalog) instead\n');
    process.stderr.write(`importing ${products ?? '54,667 synthetic products'} into ${uri} (a few minutes)…\n`);
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: modelsDir });
    try {
      const records = await benchCatalogRecords(products);
      await importCatalog(records, { catalog, embedder }, { replace: true, dryRun: false });
    } finally {
      await embedder.close();
    }
    return products ? 'Home Depot (../shared/data/eval/homedepot/products.jsonl)' : 'synthetic (tools/bench/gen-catalog.ts, seed 7)';
  } finally {
    await catalog.close();
  }
}

export interface ServerProcess {
  url: string;
  /** The default account's admin key, read from the first-start line on stderr. */
  adminKey: string;
  pid: number;
  /**
   * Resident set size of every live process of the server (the primary and its API processes
   * under AISLE_API_PROCESSES), from /proc (Linux); null elsewhere.
   */
  rss(): { totalBytes: number; perProcessBytes: number[] } | null;
  /** CPU time (user + system, every thread, every live process of the server) used so far, from /proc; null elsewhere. */
  cpuSeconds(): number | null;
  stderr(): string;
  close(): Promise<void>;
  /** Wall-clock time the process exited, once it has. */
  exitedAt(): number | null;
}

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  cpuSeconds: number;
  /** CPU of its children that have ended and been waited for (cutime + cstime). */
  reapedCpuSeconds: number;
  rssBytes: number;
}

/** Every process /proc shows; empty where there is no /proc. */
function readProcs(): ProcStat[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // The fields after the parenthesised command name: state is [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14] (clock ticks, 100 Hz), rss [21] (pages).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({
        pid: Number(pid),
        ppid: Number(f[1]),
        comm,
        cpuSeconds: (Number(f[11]) + Number(f[12])) / 100,
        reapedCpuSeconds: (Number(f[13]) + Number(f[14])) / 100,
        rssBytes: Number(f[21]) * 4096,
      });
    } catch {
      // exited between the listing and the read
    }
  }
  return out;
}

/** `root` and every live process descending from it. */
function processTree(root: number): ProcStat[] {
  const procs = readProcs();
  const tree = procs.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...procs.filter((p) => p.ppid === tree[i]!.pid));
  return tree;
}

/**
 * CPU time used so far by every PostgreSQL process on this machine (the server the bench talks
 * to, when it runs here); null when there is none to read.
 */
export function postgresCpuSeconds(): number | null {
  const procs = readProcs();
  const pg = procs.filter((p) => p.comm === 'postgres');
  if (pg.length === 0) return null;
  const pids = new Set(pg.map((p) => p.pid));
  // Backends come and go with connections: what the ones that ended used is in their parent's
  // (the postmaster's) reaped-children time.
  return pg.reduce((n, p) => n + p.cpuSeconds + (pids.has(p.ppid) ? 0 : p.reapedCpuSeconds), 0);
}

/**
 * Starts the server as `npm start` does (src/launcher/run.mjs: src/main.ts compiled) with `env`
 * (and node flags such as --cpu-prof) on an ephemeral port; resolves once it listens.
 */
export async function startServerProcess(env: Record<string, string>, options: { nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), 'src/launcher/run.mjs'], {
    cwd: REPO_ROOT,
    // npm start's default glibc mmap threshold (package.json, docs/operations.md "Memory"), unless set.
    env: { MALLOC_MMAP_THRESHOLD_: '131072', ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
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
    const timer = setTimeout(() => {
      // A server that never got ready must not outlive the bench.
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${err}`));
    }, timeoutMs);
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
    rss: () => {
      // The primary (node:cluster) or the single server process, and its API processes; not esbuild's service process (it bundles the learning thread).
      const tree = processTree(pid).filter((p) => p.comm !== 'esbuild');
      if (tree.length === 0) return null;
      return { totalBytes: tree.reduce((n, p) => n + p.rssBytes, 0), perProcessBytes: tree.map((p) => p.rssBytes) };
    },
    cpuSeconds: () => {
      const tree = processTree(pid);
      return tree.length === 0 ? null : tree.reduce((n, p) => n + p.cpuSeconds, 0);
    },
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
