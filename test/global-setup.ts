import { writeFile } from 'node:fs/promises';
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
 * Migrates one database per run and hands it to every test file: PGlite as a data-dir dump
 * (loading it skips the ~4 s initdb), real PostgreSQL as a template database to copy.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  return async () => undefined;
}
