import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openDb } from '../src/store/pg/index.js';
import { cachedSuiteFixtures, discardSuiteFixtures, fingerprint, type SuiteFixtures } from './helpers/suite-fixtures.js';

declare module 'vitest' {
  export interface ProvidedContext extends SuiteFixtures {
    pgTemplate: string;
  }
}

/**
 * Points the run's temp folder (TMPDIR, which test workers and the processes tests start
 * inherit) at a folder of its own, and returns it with the check that fails the suite when a test
 * left an `aisle-*` directory in it. Other runs on the machine (a second checkout's tests) then
 * neither trip the check nor get cleaned up by it.
 */
function isolateTempDirs(): { run: string; check: () => Promise<void> } {
  const run = mkdtempSync(join(tmpdir(), 'aisle-test-run-'));
  process.env.TMPDIR = run;
  return {
    run,
    check: async () => {
      const left = readdirSync(run).filter((name) => name.startsWith('aisle-'));
      await rm(run, { recursive: true, force: true, maxRetries: 3 });
      if (left.length > 0) {
        // vitest reports an error thrown here but still exits 0, so the exit code is set directly.
        process.exitCode = 1;
        throw new Error(
          `tests left ${left.length} temporary director${left.length === 1 ? 'y' : 'ies'} behind: ${left.join(', ')} (use tempDir() from test/helpers/process.ts)`,
        );
      }
    },
  };
}

/**
 * Provides what every test file shares (helpers/suite-fixtures.ts: the migrated database, the
 * model, the sample catalog, a first start's data directory; built once per change to the code)
 * and, on real PostgreSQL, a migrated template database to copy. At the end, fails the run if a
 * test wrote into a fixture that files share read-only, and drops that build.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const temp = isolateTempDirs();
  // The server's compiled JavaScript (src/launcher/compile.mjs, what `npm start` runs) is built
  // here, once, rather than by the first of the servers that test files start side by side.
  const compile = promisify(execFile)(process.execPath, ['src/launcher/compile.mjs']);
  const [built, template, compiled] = await Promise.allSettled([cachedSuiteFixtures(), providePgTemplate(project), compile]);
  if (built.status === 'rejected' || template.status === 'rejected' || compiled.status === 'rejected') {
    // A setup that fails leaves nothing behind: no run folder in /tmp, no template database.
    if (template.status === 'fulfilled') await template.value().catch(() => undefined);
    await rm(temp.run, { recursive: true, force: true, maxRetries: 3 });
    throw ([built, template, compiled].find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
  }
  const fixtures = built.value;
  const dropTemplate = template.value;
  for (const [name, value] of Object.entries(fixtures)) project.provide(name as keyof SuiteFixtures, value);
  const shared = [fixtures.sampleCatalogDir, fixtures.seedDataDir];
  const before = await Promise.all(shared.map(fingerprint));
  return async () => {
    await dropTemplate();
    const after = await Promise.all(shared.map(fingerprint));
    const changed = shared.filter((_, i) => after[i] !== before[i]);
    const leftBehind = await temp.check().then(
      () => null,
      (err: unknown) => err,
    );
    if (changed.length > 0) {
      await discardSuiteFixtures(fixtures);
      process.exitCode = 1;
      throw new Error(
        `tests wrote into fixtures that every file shares read-only: ${changed.join(', ')} (copy them first: openSampleCatalog({ copy: true }), seededDataDir())`,
      );
    }
    if (leftBehind) throw leftBehind;
  };
}

/** A migrated template database on real PostgreSQL (DATABASE_URL), copied per test database. */
async function providePgTemplate(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    project.provide('pgTemplate', '');
    return async () => {};
  }
  const template = `aisle_test_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const target = new URL(url);
  target.pathname = `/${template}`;
  // No statement bound (nor, with it, the idle-in-transaction one): the fixtures built beside this
  // migration keep the event loop busy, and on a loaded machine the server ended the migration's
  // transaction as idle while it waited for its next statement.
  const db = await openDb({ kind: 'postgres', url: target.toString(), poolSize: 1, timeouts: { statementMs: 0 } });
  await migrate(db);
  await db.close();
  project.provide('pgTemplate', template);
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
  };
}
