import { CatalogPlacer } from '../core/catalog/placement.js';
import type { Embedder } from '../core/shared-ports.js';
import { loadKnowledge, loadTaxonomy } from './files.js';

/** The taxonomy and knowledge-base types, read once per process (per operator file list). */
const loaded = new Map<string, Promise<ConstructorParameters<typeof CatalogPlacer>>>();
/** One placer per embedder: the category names it embedded stay for the next import that uses it. */
const placers = new WeakMap<Embedder, Promise<CatalogPlacer>>();

/**
 * The placer an import uses (docs/ingest.md, "Placement in the taxonomy"): the shipped taxonomy,
 * with the knowledge base's product types and names (the operator's own entries included) as the
 * names categories go by, and `embedder` voting among them.
 */
export function openPlacer(embedder: Embedder, extraKnowledgeFiles: readonly string[] = [], options: { cached?: boolean } = {}): Promise<CatalogPlacer> {
  // Uncached (bench:ingest): no category name embedded yet, as in a fresh process.
  if (options.cached === false) return knowledge(extraKnowledgeFiles).then(([taxonomy, types]) => new CatalogPlacer(taxonomy, types, embedder));
  let placer = placers.get(embedder);
  if (placer === undefined) {
    placer = knowledge(extraKnowledgeFiles).then(([taxonomy, types]) => new CatalogPlacer(taxonomy, types, embedder));
    // A placer that failed to load is not kept: the next import tries again.
    placer.catch(() => placers.delete(embedder));
    placers.set(embedder, placer);
  }
  return placer;
}

function knowledge(extraFiles: readonly string[]): Promise<ConstructorParameters<typeof CatalogPlacer>> {
  const key = JSON.stringify(extraFiles);
  let read = loaded.get(key);
  if (read === undefined) {
    read = (async () => {
      const taxonomy = await loadTaxonomy();
      const { entries } = await loadKnowledge(taxonomy, extraFiles);
      return [taxonomy, entries.map((e) => ({ categoryId: e.category_id, names: [e.type, ...e.names] })), null] as ConstructorParameters<typeof CatalogPlacer>;
    })();
    read.catch(() => loaded.delete(key));
    loaded.set(key, read);
  }
  return read;
}
