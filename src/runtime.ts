import type { Config } from './config.js';
import type { Embedder } from './core/ports.js';
import { createEmbedder } from './embed/embedder.js';
import { LanceCatalogStore } from './store/lance/catalog-store.js';

/** The configured embedding provider (shared by the server, ingest, eval and benchmarks). */
export function openEmbedder(config: Config): Promise<Embedder> {
  const e = config.embedding;
  return createEmbedder({
    provider: e.provider,
    cacheDir: e.cacheDir,
    ...(e.model === undefined ? {} : { model: e.model }),
    ...(e.baseUrl === undefined ? {} : { baseUrl: e.baseUrl }),
    ...(e.apiKey === undefined ? {} : { apiKey: e.apiKey }),
    ...(e.dimensions === undefined ? {} : { dimensions: e.dimensions }),
  });
}

/** The configured catalog (a local directory under the data dir by default, or an s3:// URI). */
export function openCatalog(config: Config): Promise<LanceCatalogStore> {
  return LanceCatalogStore.open({ uri: config.catalog.uri, annThreshold: config.catalog.annThreshold, annIndex: config.catalog.annIndex, cacheBytes: config.catalog.cacheBytes });
}
