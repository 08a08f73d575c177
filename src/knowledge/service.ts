import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toEmbeddingInput } from '../core/catalog/embedding-text.js';
import type { KnowledgeEntry } from '../core/knowledge/entries.js';
import { KnowledgeMatcher, knowledgeTexts } from '../core/knowledge/matcher.js';
import type { ShopperKnowledge } from '../core/knowledge/ports.js';
import type { Embedder, Logger } from '../core/shared-ports.js';
import { type LoadedKnowledge, loadKnowledge, loadTaxonomy } from './files.js';

/** Texts embedded per call while the base is built: a background job, so in pieces that leave room for searches' own embeddings. */
const BUILD_BATCH = 256;

export interface KnowledgeServiceOptions {
  embedder: Embedder;
  /** Where the base's vectors are cached, per embedding model (the model cache's folder). */
  cacheDir: string;
  /** An operator's own entries (AISLE_KNOWLEDGE_FILE). */
  extraFiles?: readonly string[];
  /** The base's folder: data/knowledge/ unless a test names its own. */
  dir?: string;
  logger: Logger;
}

/**
 * The shopper's knowledge base for search (docs/knowledge.md): the shipped entries and the
 * operator's, filtered, with a vector per need and name from the serving embedding model. The
 * vectors are built once per model and base, in the background at the first start (search reads
 * conversations from the catalog alone until they are ready), and cached beside the model, so
 * later starts read them in well under a second.
 */
export class KnowledgeService implements ShopperKnowledge {
  private ready: KnowledgeMatcher | null = null;
  private loaded: Promise<LoadedKnowledge> | null = null;
  private building: Promise<void> | null = null;

  constructor(private readonly options: KnowledgeServiceOptions) {}

  matcher(): KnowledgeMatcher | null {
    return this.ready;
  }

  /** Reads and filters the entries (a fraction of a second); a bad knowledge file rejects, naming its lines. */
  load(): Promise<LoadedKnowledge> {
    this.loaded ??= loadTaxonomy().then((taxonomy) => loadKnowledge(taxonomy, this.options.extraFiles ?? [], this.options.dir));
    return this.loaded;
  }

  /** Loads and, if needed, embeds the base; resolves once search uses it. */
  start(): Promise<void> {
    this.building ??= this.build();
    return this.building;
  }

  private async build(): Promise<void> {
    const started = performance.now();
    const { embedder, logger } = this.options;
    const { entries, report } = await this.load();
    const texts = knowledgeTexts(entries);
    const cache = join(this.options.cacheDir, 'knowledge', `${embedder.model.replace(/[^\w.-]+/g, '_')}-${digestOf(entries)}.f32`);
    let vectors = await readVectors(cache, texts.needs.length + texts.names.length, embedder.dimensions);
    const cached = vectors !== null;
    if (vectors === null) {
      vectors = [];
      const all = [...texts.needs, ...texts.names];
      for (let i = 0; i < all.length; i += BUILD_BATCH) vectors.push(...(await embedder.embed(all.slice(i, i + BUILD_BATCH).map(toEmbeddingInput))));
      await writeVectors(cache, vectors);
    }
    this.ready = new KnowledgeMatcher(entries, { needs: vectors.slice(0, texts.needs.length), names: vectors.slice(texts.needs.length) });
    logger.info(
      { types: entries.length, needs: texts.needs.length, names: texts.names.length, filtered: report, cached, ms: Math.round(performance.now() - started) },
      "shopper's knowledge base ready",
    );
  }
}

/** Names the base's content, so vectors built for another base (an operator's file changed) are never read for this one. */
function digestOf(entries: readonly KnowledgeEntry[]): string {
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
}

async function readVectors(file: string, count: number, dimensions: number): Promise<Float32Array[] | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return null;
  }
  if (bytes.length !== count * dimensions * 4) return null;
  // A Float32Array view needs 4-byte alignment; a copy has it.
  const all =
    bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, count * dimensions) : new Float32Array(new Uint8Array(bytes).buffer);
  return Array.from({ length: count }, (_, i) => all.subarray(i * dimensions, (i + 1) * dimensions));
}

/** Written whole under a temporary name, then renamed: a process stopped mid-write leaves no half file. */
async function writeVectors(file: string, vectors: readonly Float32Array[]): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))));
  await rename(temp, file);
}
