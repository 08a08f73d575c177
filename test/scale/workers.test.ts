/**
 * `npm start` with AISLE_API_PROCESSES on PostgreSQL: one primary and N API processes sharing the
 * port. It announces itself once, every process answers, a killed process is started again
 * while the others keep serving, and SIGTERM stops them all. On the embedded database the
 * setting is refused with a warning and one process serves.
 */
import { get as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb, usingRealPostgres } from '../helpers/db.js';
import { type Child, childEnv, runTs, seededDataDir } from '../helpers/process.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pids of the "API process listening" log lines so far (JSON logs on stderr), in order. */
const listeningPids = (stderr: string): number[] =>
  stderr
    .split('\n')
    .filter((l) => l.includes('"API process listening"'))
    .map((l) => (JSON.parse(l) as { pid: number }).pid);

async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.skipIf(!usingRealPostgres())('AISLE_API_PROCESSES on PostgreSQL', () => {
  let testDb: TestDb;
  let server: Child;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    server?.proc.kill('SIGKILL');
    await testDb?.cleanup();
  });

  it('serves from every process, restarts a killed one, and stops them all on SIGTERM', { timeout: 240_000 }, async () => {
    // The database is PostgreSQL; the data dir holds the model the API processes load.
    const dataDir = await seededDataDir('workers', { catalog: false });
    server = runTs('src/main.ts', [], {
      ...childEnv(dataDir, { AISLE_SAMPLE_CATALOG: 'false', AISLE_API_PROCESSES: '2', LOG_LEVEL: 'info' }),
      DATABASE_URL: testDb.url!,
      DATABASE_POOL_SIZE: '4',
    });
    const [, url] = await server.waitForStderr(/Aisle listening on (http:\/\/\S+) with 2 API processes/, 120_000);
    const [, key] = await server.waitForStderr(/admin API key, shown only now: (\S+)/);
    // The key and the address are announced once, by the primary, not by each process.
    expect(server.stderr().match(/admin API key, shown only now/g)).toHaveLength(1);
    expect(server.stderr().match(/Aisle listening on/g)).toHaveLength(1);
    const pids = await waitFor('two API processes', () => (listeningPids(server.stderr()).length >= 2 ? listeningPids(server.stderr()) : undefined));
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(server.proc.pid);

    // A new connection each time: a kept-alive one to the process killed below would be reset.
    const get = () =>
      new Promise<number>((resolve, reject) => {
        const req = httpGet(`${url}/v1/keys`, { headers: { 'x-api-key': key! }, agent: false, timeout: 10_000 }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
        req.on('error', reject);
      });
    for (let i = 0; i < 20; i++) expect(await get()).toBe(200);

    process.kill(pids[0]!, 'SIGKILL');
    // Once the primary has seen it die, the other process answers everything while the killed
    // one is started again. (A connection handed over in the instant of the kill is lost with it.)
    await server.waitForStderr(/API process died; starting it again/);
    for (let i = 0; i < 10; i++) expect(await get()).toBe(200);
    const replacement = await waitFor('a replacement process', () => listeningPids(server.stderr()).find((p) => !pids.includes(p)));
    expect(alive(replacement)).toBe(true);
    for (let i = 0; i < 20; i++) expect(await get()).toBe(200);

    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await waitFor('every API process to exit', () => ![pids[1]!, replacement].some(alive), 15_000);
  });
});

describe('AISLE_API_PROCESSES on the embedded database', () => {
  it('serves from one process and says why', { timeout: 180_000 }, async () => {
    const server = runTs(
      'src/main.ts',
      [],
      childEnv(await seededDataDir('workers-pglite', { catalog: false }), { AISLE_SAMPLE_CATALOG: 'false', AISLE_API_PROCESSES: '4', LOG_LEVEL: 'info' }),
    );
    try {
      await server.waitForStderr(/Aisle listening on http/, 120_000);
      expect(server.stderr()).toContain('AISLE_API_PROCESSES ignored: the embedded database (PGlite) serves from one process');
      expect(server.stderr()).not.toContain('API process listening');
    } finally {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
  });
});
