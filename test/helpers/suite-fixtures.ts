import { cp, readdir, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { importCatalog } from '../../src/core/catalog/import.js';
import { refreshColdStartModel } from '../../src/core/learning/cold-start.js';
import { readFeed } from '../../src/feeds/detect.js';
import { openCatalog, openEmbedder } from '../../src/runtime.js';
import { isPgliteDb } from '../../src/store/pg/db.js';
import { openMigratedDb } from '../../src/store/pg/index.js';

/**
 * What the whole suite shares, built once per run by test/global-setup.ts (paths handed to test
 * files with vitest's provide/inject):
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

export const SAMPLE_FEED = 'data/sample-catalog.jsonl';

/** Builds the fixtures under `dir`; the database and the catalog are built side by side. */
export async function buildSuiteFixtures(dir: string): Promise<SuiteFixtures> {
  const seedDataDir = join(dir, 'seed');
  const fixtures: SuiteFixtures = {
    seedDataDir,
    modelCacheDir: join(seedDataDir, 'models'),
    sampleCatalogDir: join(dir, 'sample-catalog'),
    pgliteSnapshot: join(dir, 'pglite-snapshot.tar'),
  };
  // The configuration a first start in seedDataDir reads (defaults everywhere else).
  const config = loadConfig({ AISLE_DATA_DIR: seedDataDir });
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
      const summary = await importCatalog((await readFeed(SAMPLE_FEED, {})).records, { catalog, embedder }, { replace: false, dryRun: false });
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
