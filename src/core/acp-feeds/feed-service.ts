import { BatchApplier, type ProductPlacer } from '../catalog/import.js';
import { normalizeProduct } from '../catalog/normalize.js';
import type { CatalogStore } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import type { Clock } from '../clock.js';
import { AppError, type FieldError } from '../errors.js';
import { newId, parseId, prefixedId } from '../ids.js';
import type { AcpProduct, CreateFeedRequest, FeedMetadata, UpsertProductsRequest } from '../schemas/feeds.js';
import type { Embedder, Logger, Principal } from '../shared-ports.js';
import { acpVariantRows, isSearchable, variantProductId } from './acp-products.js';
import type { FeedStore, StoredFeed } from './ports.js';

/** Feeds one account may hold. */
const MAX_FEEDS_PER_ACCOUNT = 100;

/** Texts per embedding call, as imports send them. */
const EMBED_BATCH = 256;

/** How long an upsert waits for another process's catalog write (an import, another upsert) before 503. */
const WRITER_WAIT_MS = 10_000;

export interface FeedServiceDeps {
  store: FeedStore;
  clock: Clock;
  logger: Logger;
  /** Without a catalog and embedder (a server started without search), upserts answer 503. */
  catalog?: CatalogStore;
  embedder?: Embedder;
  /** Places published products in the taxonomy (import.ts). */
  placer?: ProductPlacer;
  /** Runs after an upsert is published: this process warms the new catalog version. */
  onPublished?: () => Promise<void>;
}

/**
 * ACP's Feed API (docs/commerce.md, "Product feeds"). A feed belongs to the account that created
 * it; another account's feed is 404 like an unknown one. An upsert stores whole products by id
 * and publishes their variants to the catalog as one new catalog version: searchable in this
 * process when the answer comes, in every other API process at its next catalog check.
 * Discontinued variants, and variants a product no longer lists, leave the catalog.
 */
export class FeedService {
  // One catalog write at a time in this process: the catalog has one writer at a time.
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: FeedServiceDeps) {}

  async create(principal: Principal, body: CreateFeedRequest): Promise<FeedMetadata> {
    refuseTestMode(principal);
    if ((await this.deps.store.count(principal.accountId)) >= MAX_FEEDS_PER_ACCOUNT) {
      throw new AppError('conflict', `An account can hold at most ${MAX_FEEDS_PER_ACCOUNT} feeds; upsert into an existing one.`);
    }
    const now = this.deps.clock.now();
    const feed: StoredFeed = { id: newId(), accountId: principal.accountId, targetCountry: body.target_country ?? null, createdAt: now, updatedAt: now };
    await this.deps.store.create(feed);
    return metadata(feed);
  }

  async get(principal: Principal, rawId: string): Promise<FeedMetadata> {
    return metadata(await this.find(principal, rawId));
  }

  async products(principal: Principal, rawId: string): Promise<{ products: AcpProduct[] }> {
    const feed = await this.find(principal, rawId);
    return { products: await this.deps.store.products(feed.id) };
  }

  async upsert(principal: Principal, rawId: string, body: UpsertProductsRequest): Promise<{ id: string; accepted: boolean }> {
    refuseTestMode(principal);
    const feed = await this.find(principal, rawId);
    const { catalog, embedder } = this.deps;
    if (!catalog || !embedder) throw new AppError('unavailable', 'search is not configured on this server, so feeds cannot be published');
    // The last product of an id wins within one request, as it would across requests.
    const last = new Map(body.products.map((p, i) => [p.id, i]));
    const products = body.products.filter((p, i) => last.get(p.id) === i);
    const now = this.deps.clock.now();
    const { publish, remove } = this.catalogChanges(feed.id, body.products, last, now);
    const run = this.writing.then(async () => {
      const before = new Map((await this.deps.store.products(feed.id)).map((p) => [p.id, p]));
      // Variants a product listed before and no longer lists leave the catalog too.
      for (const p of products) {
        const kept = new Set(p.variants.map((v) => v.id));
        for (const v of before.get(p.id)?.variants ?? []) if (!kept.has(v.id)) remove.push(variantProductId(feed.id, v.id));
      }
      await this.publish(catalog, embedder, publish, remove);
      await this.deps.store.upsertProducts(feed.id, products, now);
    });
    this.writing = run.catch(() => undefined);
    await run;
    await this.deps.onPublished?.().catch((err: unknown) => this.deps.logger.warn({ err }, 'warming the catalog after a feed upsert failed'));
    return { id: prefixedId('feed', feed.id), accepted: true };
  }

  /**
   * The catalog products of the upsert's searchable variants and the ids of its discontinued
   * ones. 400 validation_failed naming each variant Aisle cannot index (nothing is written then).
   */
  private catalogChanges(
    feedId: string,
    products: readonly AcpProduct[],
    last: ReadonlyMap<string, number>,
    now: Date,
  ): { publish: CatalogProduct[]; remove: string[] } {
    const publish: CatalogProduct[] = [];
    const remove: string[] = [];
    const errors: FieldError[] = [];
    products.forEach((product, i) => {
      if (last.get(product.id) !== i) return;
      acpVariantRows(product, feedId, now).forEach(({ variant, row }, j) => {
        if (!isSearchable(variant)) {
          remove.push(String(row.product_id));
          return;
        }
        const normalized = normalizeProduct(row);
        if (normalized.ok) publish.push(normalized.product);
        else errors.push({ path: `products.${i}.variants.${j}`, message: `${normalized.reason}: ${normalized.detail}` });
      });
    });
    if (errors.length > 0) {
      throw new AppError('validation_failed', `${errors.length} variant(s) cannot be listed: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, {
        errors,
      });
    }
    return { publish, remove };
  }

  /**
   * One new catalog version with these products written and those removed, the way an import
   * writes them (import.ts): a variant whose price or availability alone changed is written
   * without embedding, one sent again unchanged not at all, and an upsert that changes nothing
   * makes no version. The previous version keeps serving on any failure.
   */
  private async publish(catalog: CatalogStore, embedder: Embedder, products: readonly CatalogProduct[], remove: readonly string[]): Promise<void> {
    if (products.length === 0 && remove.length === 0) return;
    const writer = await this.openWriter(catalog, embedder);
    try {
      const applier = new BatchApplier(writer, embedder, EMBED_BATCH, undefined, this.deps.placer ?? null);
      await applier.apply(products);
      await applier.drain();
      const stored = await writer.storedDigests(remove);
      await writer.remove(remove);
      const p = applier.progress;
      if (p.imported + p.updated + p.delta + stored.size === 0) await writer.abort();
      else await writer.commit();
    } catch (err) {
      await writer.abort();
      throw err;
    }
  }

  /** The catalog's writer; another process's import holds it for a while, so wait for it (bounded). */
  private async openWriter(catalog: CatalogStore, embedder: Embedder) {
    const deadline = Date.now() + WRITER_WAIT_MS;
    for (;;) {
      try {
        return await catalog.openWriter({ model: embedder.model, dimensions: embedder.dimensions, replace: false });
      } catch (err) {
        const busy = err instanceof Error && /Another import/.test(err.message);
        if (!busy) throw err;
        if (Date.now() >= deadline) {
          throw new AppError('unavailable', 'The catalog is being written by another import; retry shortly.', { headers: { 'retry-after': '5' }, cause: err });
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  private async find(principal: Principal, rawId: string): Promise<StoredFeed> {
    const id = parseId('feed', rawId);
    const feed = id === null ? null : await this.deps.store.find(principal.accountId, id);
    if (feed === null) throw new AppError('not_found', `No feed ${rawId} in this account.`);
    return feed;
  }
}

/**
 * The catalog is one for every account and both modes: products a test key published would show
 * in live searches, so test keys cannot publish (docs/commerce.md, "Test mode").
 */
export function refuseTestMode(principal: Principal): void {
  if (principal.livemode !== false) return;
  throw new AppError('insufficient_scope', 'Test keys cannot publish products: the catalog is shared with live searches. Use a live key.', {
    extensions: { required_scope: 'catalog:write' },
  });
}

const metadata = (f: StoredFeed): FeedMetadata => ({
  id: prefixedId('feed', f.id),
  ...(f.targetCountry === null ? {} : { target_country: f.targetCountry }),
  updated_at: f.updatedAt.toISOString(),
});
