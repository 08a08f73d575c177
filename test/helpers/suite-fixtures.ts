import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { cp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readFeed } from '../../src/catalog/files/detect.js';
import { loadConfig } from '../../src/config.js';
import { importCatalog } from '../../src/core/catalog/import.js';
import { refreshColdStartModel } from '../../src/core/learning/cold-start.js';
import { openPlacer } from '../../src/knowledge/placer.js';
import { openCatalog, openEmbedder } from '../../src/runtime.js';
import { isPgliteDb } from '../../src/store/pg/db.js';
import { openMigratedDb } from '../../src/store/pg/index.js';
import { processAlive } from '../../src/store/pid-lock.js';

/**
 * What the whole suite shares, built once per change to the code by test/global-setup.ts (paths
 * handed to test files with vitest's provide/inject):
 * - `seedDataDir`: a data directory as `npm start`'s first start leaves it before it serves: the
 *   migrated embedded database (pg/), the built embedding model (models/) and the sample catalog
 *   with the ranking model fitted from it (catalog/). Child processes start on copies of it
 *   (seededDataDir() in helpers/process.ts).
 * - `modelCacheDir`: that built model, which test files load read-only.
 * - `sampleCatalogDir`: the sample catalog as the import leaves it, before the fit (what
 *   openSampleCatalog() in helpers/search.ts opens, or copies for a file that writes to it).
 * - `pgliteSnapshot`: a dump of the migrated database, loaded into memory per test database.
 * Each is built by the code `npm start` runs (the runtime's openers, importCatalog, migrations).
 */
export interface SuiteFixtures {
  seedDataDir: string;
  modelCacheDir: string;
  sampleCatalogDir: string;
  pgliteSnapshot: string;
}

const SAMPLE_FEED = 'data/sample-catalog.jsonl';

/** Where cached fixtures live, one folder per digest of what they are built from. */
const CACHE = fileURLToPath(new URL('../../.cache/test-fixtures', import.meta.url));
/** Older builds kept beside the current one (another checkout state's run may still use one). */
const KEEP = 2;

/**
 * The fixtures for the tree as it is, from `.cache/test-fixtures/<digest>/`: built there by the
 * first run after a change to what they are built from (src/, the sample catalog, the lock file,
 * this file) and reused by later runs, which then start about 15 s sooner. Built under a
 * temporary name and renamed into place, as src/launcher/compile.mjs does, so a run that stops
 * half-way leaves nothing a later run would take for a build. Tests only read them (the run fails
 * and drops the build if one wrote into them: `discardSuiteFixtures`).
 */
export async function cachedSuiteFixtures(): Promise<SuiteFixtures> {
  // The build tool's digest (src/launcher/compile.mjs), run as a command: tests import nothing from tools/.
  const { stdout } = await promisify(execFile)(process.execPath, [
    fileURLToPath(new URL('../../src/launcher/compile.mjs', import.meta.url)),
    '--digest',
    'src',
    SAMPLE_FEED,
    'test/helpers/suite-fixtures.ts',
  ]);
  const digest = stdout.trim();
  const out = join(CACHE, digest);
  // A build whose files changed since it was made (a run stopped before its end-of-run check
  // found a test writing into it) is built again.
  if (existsSync(out) && (await readFile(join(out, FINGERPRINT), 'utf8').catch(() => '')) !== (await fingerprintOf(fixturePaths(out)))) {
    await rm(out, { recursive: true, force: true });
  }
  if (!existsSync(out)) {
    mkdirSync(CACHE, { recursive: true });
    const temp = `${out}.${process.pid}.tmp`;
    await rm(temp, { recursive: true, force: true });
    mkdirSync(temp);
    await buildSuiteFixtures(temp);
    await writeFile(join(temp, FINGERPRINT), await fingerprintOf(fixturePaths(temp)));
    await rename(temp, out).catch(async (err: unknown) => {
      // Another run put the same build in place first: use that one.
      await rm(temp, { recursive: true, force: true });
      if (!existsSync(out)) throw err;
    });
  }
  const now = new Date();
  await utimes(out, now, now);
  await prune(out);
  return fixturePaths(out);
}

/** Removes a cached build whose files a test changed, so that the next run builds it anew. */
export async function discardSuiteFixtures(fixtures: SuiteFixtures): Promise<void> {
  await rm(join(fixtures.seedDataDir, '..'), { recursive: true, force: true });
}

/** The fingerprints of the shared folders as built, kept beside them. */
const FINGERPRINT = 'fingerprint.txt';
const fingerprintOf = async (f: SuiteFixtures) => (await Promise.all([f.sampleCatalogDir, f.seedDataDir].map(fingerprint))).join('\n');

/** Removes builds past the KEEP newest, and temporary folders of runs that are gone. */
async function prune(current: string): Promise<void> {
  const builds = await Promise.all(
    (await readdir(CACHE))
      .filter((name) => /^[0-9a-f]{16}$/.test(name) && join(CACHE, name) !== current)
      .map(async (name) => ({ path: join(CACHE, name), used: (await stat(join(CACHE, name))).mtimeMs })),
  );
  builds.sort((a, b) => b.used - a.used);
  for (const old of builds.slice(KEEP)) await rm(old.path, { recursive: true, force: true });
  for (const name of await readdir(CACHE)) {
    const pid = /^[0-9a-f]{16}\.(\d+)\.tmp$/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) await rm(join(CACHE, name), { recursive: true, force: true });
  }
}

function fixturePaths(dir: string): SuiteFixtures {
  const seedDataDir = join(dir, 'seed');
  return {
    seedDataDir,
    modelCacheDir: join(seedDataDir, 'models'),
    sampleCatalogDir: join(dir, 'sample-catalog'),
    pgliteSnapshot: join(dir, 'pglite-snapshot.tar'),
  };
}

/** Builds the fixtures under `dir`; the database and the catalog are built side by side. */
async function buildSuiteFixtures(dir: string): Promise<SuiteFixtures> {
  const fixtures = fixturePaths(dir);
  // The configuration a first start in seedDataDir reads (defaults everywhere else).
  const config = loadConfig({ AISLE_DATA_DIR: fixtures.seedDataDir });
  await Promise.all([buildDatabase(config, fixtures.pgliteSnapshot), buildCatalogs(config, fixtures.sampleCatalogDir)]);
  return fixtures;
}

async function buildDatabase(config: ReturnType<typeof loadConfig>, snapshotPath: string): Promise<void> {
  const db = await openMigratedDb(config);
  try {
    if (!isPgliteDb(db)) throw new Error('expected the embedded database');
    await writeFile(snapshotPath, Buffer.from(await (await db.dump()).arrayBuffer()));
  } finally {
    await db.close();
  }
}

/** The sample import, copied aside before the cold-start fit that a first start runs right after it. */
async function buildCatalogs(config: ReturnType<typeof loadConfig>, sampleCatalogDir: string): Promise<void> {
  const embedder = await openEmbedder(config);
  try {
    let catalog = await openCatalog(config);
    try {
      const summary = await importCatalog(
        (await readFeed(SAMPLE_FEED, {})).records,
        { catalog, embedder, placer: await openPlacer(embedder) },
        { replace: false, dryRun: false },
      );
      if (!summary.catalog || summary.skipped > 0) throw new Error(`the sample catalog did not import cleanly: ${JSON.stringify(summary.skippedByReason)}`);
    } finally {
      await catalog.close();
    }
    await cp(config.catalog.uri, sampleCatalogDir, { recursive: true });
    catalog = await openCatalog(config);
    try {
      const fit = await refreshColdStartModel({ catalog, embedder });
      if (fit.action !== 'fitted') throw new Error(`no cold-start model for the sample catalog: ${JSON.stringify(fit)}`);
    } finally {
      await catalog.close();
    }
  } finally {
    await embedder.close();
  }
}

/**
 * Every file under `dir` with its size and modification time: taken before and after the run, it
 * shows whether a test wrote into a fixture it should only read.
 */
export async function fingerprint(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const lines: string[] = [];
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const s = await stat(path);
    lines.push(`${relative(dir, path)} ${s.size} ${s.mtimeMs}`);
  }
  return lines.sort().join('\n');
}
