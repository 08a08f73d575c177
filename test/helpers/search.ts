import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { importCatalog } from '../../src/core/catalog/import.js';
import type { Embedder } from '../../src/core/shared-ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { readFeed } from '../../src/feeds/detect.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { tempCatalogUri } from './catalog.js';
import { tempDir } from './process.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';

export interface SampleCatalog {
  catalog: LanceCatalogStore;
  embedder: Embedder;
  close(): Promise<void>;
}

/**
 * The project's sample catalog, imported through the real ingest path with the default embedder.
 * close() also removes the two temp dirs (model cache, catalog), as does a failed import.
 */
export async function openSampleCatalog(): Promise<SampleCatalog> {
  const modelsDir = tempDir('models');
  const catalogUri = tempCatalogUri();
  const removeDirs = () => {
    for (const dir of [modelsDir, dirname(catalogUri)]) rmSync(dir, { recursive: true, force: true });
  };
  let embedder: Embedder | undefined;
  let catalog: LanceCatalogStore | undefined;
  try {
    embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(modelsDir, 'models') });
    catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: catalogUri, annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
    const feed = await readFeed('data/sample-catalog.jsonl', {});
    const summary = await importCatalog(feed.records, { catalog, embedder }, { replace: true, dryRun: false });
    if (!summary.catalog) throw new Error('sample catalog import failed');
  } catch (err) {
    await catalog?.close().catch(() => undefined);
    await embedder?.close().catch(() => undefined);
    removeDirs();
    throw err;
  }
  const [openCatalog, openEmbedder] = [catalog, embedder];
  return {
    catalog: openCatalog,
    embedder: openEmbedder,
    close: async () => {
      try {
        await openCatalog.close();
        await openEmbedder.close();
      } finally {
        removeDirs();
      }
    },
  };
}
