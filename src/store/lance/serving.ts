/**
 * A catalog version a process serves, and its lifetime: what a refresh prepares before searches
 * move to it, and what stays open for the reads still using it after another version took its
 * place (docs/deployment.md, "How catalog updates reach running processes").
 */

import type { Table } from '@lancedb/lancedb';
import type { LRUCache } from 'lru-cache';
import type { CatalogInfo } from '../../core/catalog/ports.js';
import type { CatalogProduct } from '../../core/catalog/product.js';
import type { ExactScan } from './exact-scan.js';
import { type PresentKeys, presentKeys } from './exclusions.js';

/** A decoded product and its vector, as the product cache keeps them. */
export interface Hydrated {
  product: CatalogProduct;
  vector: Float32Array;
}

/** One served version: its table, pointer, ranking model, product cache and readers. */
export interface Serving {
  table: Table;
  info: CatalogInfo;
  /** The ranking model the version carries (parsed JSON, validated by the core), or null. */
  rankingModel: unknown;
  /** Decoded rows by row address, which is stable within one table version (a new version gets a new cache). */
  rows: LRUCache<bigint, Hydrated> | null;
  /** Set once warm() ran for this version: the cache filled from one sequential scan. */
  warmed: Promise<void> | null;
  /** Every row of the version, once warm() found that the cache holds them all: exact search in memory. */
  exact: ExactScan | null;
  /** Reads in flight on this version's table: a version another has replaced closes it after the last. */
  readers: number;
  /** Set once another version serves in this one's place. */
  retired: boolean;
  /** The product columns the version has (rows.ts, productColumns). */
  columns: string[];
  /** The keys the version's products answer to (exclusions.ts), once read; see presentOf. */
  present: PresentKeys | null;
  /** Whether that read has started. */
  presentRead: boolean;
}

/**
 * The version's present keys (exclusions.ts), null until read. The read, one scan of three key
 * columns, starts at the version's first search with exclusions, so a catalog no policy excludes
 * from never pays for it; until it ends, exclusions are applied without pruning.
 */
export function presentOf(serving: Serving): PresentKeys | null {
  if (!serving.presentRead) {
    serving.presentRead = true;
    acquire(serving);
    presentKeys(serving.table)
      .then((present) => {
        serving.present = present;
      })
      // A version replaced mid-read needs it no more; any other failure is tried again by a later search.
      .catch(() => {
        if (!serving.retired) serving.presentRead = false;
      })
      .finally(() => release(serving));
  }
  return serving.present;
}

/**
 * Rough in-memory size: the vector, the strings as UTF-16, and a fixed allowance for the objects,
 * the attributes and the ranking terms derived from the product (fitted to the RSS growth of the
 * Home Depot catalog fully cached).
 */
export function hydratedBytes(h: Hydrated): number {
  const p = h.product;
  const strings =
    p.title.length +
    p.description.length +
    (p.url?.length ?? 0) +
    (p.imageUrl?.length ?? 0) +
    (p.disclosureText?.length ?? 0) +
    (p.brand?.length ?? 0) +
    (p.merchant?.length ?? 0);
  return h.vector.byteLength + 2 * strings + 1_600;
}

/** Starts a read of `serving`'s table: it stays open until the read ends (release). */
export function acquire(serving: Serving): void {
  serving.readers += 1;
}

/** Ends a read of `serving`'s table, closing it if it was the last one of a replaced version. */
export function release(serving: Serving): void {
  serving.readers -= 1;
  if (serving.retired && serving.readers === 0) serving.table.close();
}

/** Runs `read` on `serving`, holding its table open until it ends. */
export async function holding<T>(serving: Serving, read: (serving: Serving) => Promise<T>): Promise<T> {
  acquire(serving);
  try {
    return await read(serving);
  } finally {
    release(serving);
  }
}

/** Marks a version replaced: its table closes now, or when the last read still using it ends. */
export function retire(serving: Serving | null): void {
  if (!serving || serving.retired) return;
  serving.retired = true;
  if (serving.readers === 0) serving.table.close();
}
