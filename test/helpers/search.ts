import { join } from 'node:path';
import { ingestCatalog } from '../../src/core/catalog/ingest.js';
import type { Embedder } from '../../src/core/ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { readFeed } from '../../src/ingest/formats/detect.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { tempCatalogUri } from './catalog.js';
import { tempDir } from './process.js';

export interface SampleCatalog {
  catalog: LanceCatalogStore;
  embedder: Embedder;
  close(): Promise<void>;
}

/** The project's sample catalog, imported through the real ingest path with the default embedder. */
export async function openSampleCatalog(): Promise<SampleCatalog> {
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(tempDir('models'), 'models') });
  const catalog = await LanceCatalogStore.open({ uri: tempCatalogUri(), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
  const feed = await readFeed('data/sample-catalog.jsonl', {});
  const summary = await ingestCatalog(feed.records, { catalog, embedder }, { replace: true, dryRun: false });
  if (!summary.catalog) throw new Error('sample catalog import failed');
  return {
    catalog,
    embedder,
    close: async () => {
      await catalog.close();
      await embedder.close();
    },
  };
}
