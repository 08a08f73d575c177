import { inject } from 'vitest';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import type { Embedder } from '../../src/core/shared-ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { tempCatalogUri } from './catalog.js';
import { copyTree } from './process.js';

export interface SampleCatalog {
  catalog: LanceCatalogStore;
  embedder: Embedder;
  close(): Promise<void>;
}

/**
 * The default embedder (USE-lite), loaded from the model the suite built once
 * (helpers/suite-fixtures.ts); it only reads that folder.
 */
export function openSharedEmbedder(): Promise<Embedder> {
  return createEmbedder({ provider: 'use-lite', cacheDir: inject('modelCacheDir') });
}

/**
 * The project's sample catalog, imported once per change to the code through the real import path with the
 * default embedder (helpers/suite-fixtures.ts). Shared read-only by default; `copy: true` gives
 * this file a copy of its own to write to (the suite fails if a test writes into the shared one).
 */
export async function openSampleCatalog(options: { copy?: boolean } = {}): Promise<SampleCatalog> {
  let uri = inject('sampleCatalogDir');
  if (options.copy) {
    uri = tempCatalogUri();
    await copySampleCatalog(uri);
  }
  const embedder = await openSharedEmbedder();
  let catalog: LanceCatalogStore;
  try {
    catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
  } catch (err) {
    await embedder.close();
    throw err;
  }
  return {
    catalog,
    embedder,
    close: async () => {
      try {
        await catalog.close();
      } finally {
        await embedder.close();
      }
    },
  };
}

/** Copies the sample catalog to `uri` (a folder that does not exist yet), for a test that writes to it or hands it to a child. */
export async function copySampleCatalog(uri: string): Promise<void> {
  await copyTree(inject('sampleCatalogDir'), uri);
}
