import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/keys/scopes.js';
import { FALLBACK_MODEL } from '../../src/core/ranking/ranking.js';
import { createPgStores, openDb } from '../../src/store/pg/index.js';
import { childEnv, type Finished, runToEnd, runTs, STACK_LINE, seededDataDir, tempDir } from '../helpers/process.js';

async function aisle(dataDir: string, ...args: string[]) {
  const child = runTs('tools/cli/aisle.ts', args, childEnv(dataDir));
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('operator CLI (npm run aisle)', () => {
  it('creates accounts and keys on the configured database', async () => {
    const dataDir = await seededDataDir('cli', { catalog: false });
    const account = await aisle(dataDir, 'accounts', 'create', '--name', 'acme', '--json');
    expect(account.code, account.stderr).toBe(0);
    const a = JSON.parse(account.stdout);
    expect(a.api_key).toMatch(/^aisle_sk_[0-9A-Za-z]{36}$/);
    expect(a.scopes.split(',').sort()).toEqual([...SCOPES].sort());

    const key = await aisle(dataDir, 'keys', 'create', '--account', a.account_id, '--name', 'prod agent', '--scopes', 'search,events:write');
    expect(key.code, key.stderr).toBe(0);
    expect(key.stdout).toMatch(/^account_id\s+[0-9a-f-]{36}$/m);
    expect(key.stdout).toMatch(/^scopes\s+search,events:write$/m);
    expect(key.stdout).toMatch(/^api_key\s+aisle_sk_[0-9A-Za-z]{36}$/m);

    const badScope = await aisle(dataDir, 'keys', 'create', '--account', a.account_id, '--name', 'x', '--scopes', 'admin');
    expect(badScope.code, badScope.stderr).toBe(64);
    expect(badScope.stderr).toMatch(/^aisle: --scopes takes scopes from search, .*, not "admin"\n\nUsage:/);
    const unknownAccount = await aisle(dataDir, 'keys', 'create', '--account', '00000000-0000-4000-8000-000000000000', '--name', 'x');
    expect(unknownAccount.code, unknownAccount.stderr).toBe(65);
    expect(unknownAccount.stderr).toBe('aisle: No account with id 00000000-0000-4000-8000-000000000000.\n');
    const usage = await aisle(dataDir, 'frobnicate');
    expect(usage.code).toBe(64);
    expect(usage.stderr).toContain('Usage:');
  });
});

describe('operator CLI (npm run aisle, npm run learn): mistakes and an unusable environment', () => {
  const show = (r: Finished) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

  it('answers usage mistakes with one line and the usage (64) and --help with the usage (0)', async () => {
    const dataDir = tempDir('cli-usage');
    const [typo, badNumber, noName, learnFlag, help] = await Promise.all([
      runToEnd('tools/cli/aisle.ts', ['accounts', 'create', '--nme', 'acme'], childEnv(dataDir)),
      runToEnd(
        'tools/cli/aisle.ts',
        ['keys', 'create', '--account', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--rate-limit', 'lots'],
        childEnv(dataDir),
      ),
      runToEnd('tools/cli/aisle.ts', ['accounts', 'create'], childEnv(dataDir)),
      runToEnd('tools/cli/learn.ts', ['--dry-run'], childEnv(dataDir)),
      runToEnd('tools/cli/aisle.ts', ['--help'], childEnv(dataDir)),
    ]);
    for (const [r, line, usage] of [
      [typo, 'aisle: unknown option --nme (did you mean --name?)', 'npm run aisle -- accounts create'],
      [badNumber, 'aisle: --rate-limit must be an integer from 1 to 1000000, not "lots"', 'npm run aisle -- accounts create'],
      [noName, 'aisle: --name is required', 'npm run aisle -- accounts create'],
      [learnFlag, 'learn: unknown option --dry-run', 'npm run learn'],
    ] as const) {
      expect(r.code, show(r)).toBe(64);
      expect(r.stderr.split('\n')[0]).toBe(line);
      expect(r.stderr).toContain(`\nUsage:\n  ${usage}`);
    }
    expect(help.code, show(help)).toBe(0);
    expect(help.stdout).toMatch(/^Usage:\n {2}npm run aisle -- accounts create/);
  });

  it('says in one line that the database is unreachable (69), held by another process (75) or misconfigured (78)', async () => {
    const dataDir = await seededDataDir('cli-env', { catalog: false });
    // Holding the embedded database here, as a running server would.
    const db = await openDb({ kind: 'pglite', dataDir });
    let results: Finished[];
    try {
      results = await Promise.all([
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        runToEnd('tools/cli/aisle.ts', ['accounts', 'create', '--name', 'acme'], {
          ...childEnv(dataDir),
          DATABASE_URL: 'postgres://postgres@127.0.0.1:1/aisle',
        }),
        runToEnd('tools/cli/aisle.ts', ['accounts', 'create', '--name', 'acme'], childEnv(dataDir)),
        runToEnd('tools/cli/learn.ts', [], childEnv(dataDir, { AISLE_API_PROCESSES: 'several' })),
      ]);
    } finally {
      await db.close();
    }
    const [unreachable, held, misconfigured] = results;
    expect([unreachable!.code, unreachable!.stderr], show(unreachable!)).toEqual([69, 'aisle: cannot reach 127.0.0.1:1: connection refused\n']);
    expect(held!.code, show(held!)).toBe(75);
    expect(held!.stderr).toBe(
      `aisle: The embedded database in ${dataDir} is in use by process ${process.pid}. PGlite is single-process: stop that process, use another AISLE_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.\n`,
    );
    expect(misconfigured!.code, show(misconfigured!)).toBe(78);
    expect(misconfigured!.stderr).toMatch(/^learn: Invalid configuration:\n {2}AISLE_API_PROCESSES: /);
    for (const r of results) expect(r.stderr, show(r)).not.toMatch(STACK_LINE);
  });
});

describe('ranking commands (npm run aisle -- ranking, npm run learn)', () => {
  it('show what serves, roll a learned model back, and run learning once', { timeout: 180_000 }, async () => {
    const dataDir = await seededDataDir('cli-ranking', { catalog: false });
    const empty = await aisle(dataDir, 'ranking', 'status');
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(/^serving\s+fallback \(the catalog's model; no learned model serves\)$/m);
    expect(empty.stdout).toMatch(/^candidate\s+none$/m);
    const scope = /^scope\s+(\S+)$/m.exec(empty.stdout)![1]!;
    const nothing = await aisle(dataDir, 'ranking', 'rollback');
    expect(nothing.stdout).toContain('No learned model serves');

    // A learned model that won its test, written as the learner writes it.
    const db = await openDb({ kind: 'pglite', dataDir });
    try {
      const store = createPgStores(db).rankingModels;
      const model = { ...FALLBACK_MODEL, source: 'learned rm_cli' };
      expect(await store.propose({ id: 'rm_cli', scope, source: model.source, model, trained: {}, createdAt: new Date() }, 'learner')).toBe(true);
      expect(await store.decide(scope, 'rm_cli', 'promote', { candidateWins: 250, servingWins: 180, ties: 900, pValue: 0.001 }, 'learner', new Date())).toBe(
        true,
      );
    } finally {
      await db.close();
    }
    const serving = await aisle(dataDir, 'ranking', 'status');
    expect(serving.stdout).toMatch(/^serving\s+rm_cli \(learned; promoted /m);
    expect(serving.stdout).toMatch(/promote\s+rm_cli\s+by learner; wins 250:180, p = 0.001/);
    const json = JSON.parse((await aisle(dataDir, 'ranking', 'status', '--json')).stdout);
    expect(json.serving.id).toBe('rm_cli');

    const rolled = await aisle(dataDir, 'ranking', 'rollback');
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(rolled.stdout).toContain("Rolled back rm_cli; now serving the catalog's own model");
    expect((await aisle(dataDir, 'ranking', 'status')).stdout).toMatch(/rollback\s+rm_cli\s+by operator \(npm run aisle\); back to fallback/);

    const learn = runTs('tools/cli/learn.ts', [], childEnv(dataDir));
    expect(await learn.exited, learn.stderr()).toBe(0);
    expect(JSON.parse(learn.stdout())).toMatchObject({ action: 'none' });
  });
});
