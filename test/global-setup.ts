import { mkdtempSync, readdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate, openDb } from '../src/store/pg/index.js';
import { isPgliteDb } from '../src/store/pg/db.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    pgTemplate: string;
  }
}

/**
 * Points the run's temp folder (TMPDIR, which test workers and the processes tests start
 * inherit) at a folder of its own, and returns the check that fails the suite when a test left
 * an `aisle-*` directory in it. Other runs on the machine (a second checkout's tests) then
 * neither trip the check nor get cleaned up by it.
 */
function isolateTempDirs(): () => Promise<void> {
  const run = mkdtempSync(join(tmpdir(), 'aisle-test-run-'));
  process.env.TMPDIR = run;
  return async () => {
    const left = readdirSync(run).filter((name) => name.startsWith('aisle-'));
    await rm(run, { recursive: true, force: true, maxRetries: 3 });
    if (left.length > 0) {
      // vitest reports an error thrown here but still exits 0, so the exit code is set directly.
      process.exitCode = 1;
      throw new Error(
        `tests left ${left.length} temporary director${left.length === 1 ? 'y' : 'ies'} behind: ${left.join(', ')} (use tempDir() from test/helpers/process.ts)`,
      );
    }
  };
}

/**
 * Migrates one database per run and hands it to every test file: PGlite as a data-dir dump
 * (loading it skips the ~4 s initdb), real PostgreSQL as a template database to copy.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const checkTempDirs = isolateTempDirs();
  const teardown = await provideDatabase(project);
  return async () => {
    await teardown();
    await checkTempDirs();
  };
}

async function provideDatabase(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const template = `aisle_test_template_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${template}`);
    await admin.query(`CREATE DATABASE ${template}`);
    const target = new URL(url);
    target.pathname = `/${template}`;
    const db = await openDb({ kind: 'postgres', url: target.toString(), poolSize: 1 });
    await migrate(db);
    await db.close();
    project.provide('pgTemplate', template);
    project.provide('pgliteSnapshot', '');
    return async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.end();
    };
  }
  const db = await openDb({ kind: 'pglite-memory' });
  await migrate(db);
  if (!isPgliteDb(db)) throw new Error('expected PGlite');
  const path = join(tmpdir(), `aisle-test-snapshot-${process.pid}.tar`);
  await writeFile(path, Buffer.from(await (await db.dump()).arrayBuffer()));
  await db.close();
  project.provide('pgliteSnapshot', path);
  project.provide('pgTemplate', '');
  return async () => {
    await rm(path, { force: true });
  };
}
