/** Catalog sources in storage (src/store/pg/catalog-source-store.ts) and the feed download (src/catalog/files/download.ts). */
import type { FeedRecord } from '../import.js';

export interface CatalogSource {
  id: string;
  accountId: string;
  url: string;
  format: string | null;
  mapping: Record<string, string | string[]> | null;
  merchant: string | null;
  scheduleMinutes: number;
  /** Validators of the last good download, sent back as If-None-Match / If-Modified-Since. */
  etag: string | null;
  lastModified: string | null;
  nextPullAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface SourcePull {
  id: string;
  sourceId: string;
  startedAt: Date;
  finishedAt: Date;
  status: 'ok' | 'not_modified' | 'failed';
  error: string | null;
  products: { new: number; updated: number; delta: number; unchanged: number; skipped: number };
}

export interface CatalogSourceStore {
  create(source: CatalogSource): Promise<void>;
  count(accountId: string): Promise<number>;
  list(accountId: string): Promise<CatalogSource[]>;
  /** The source if it is the account's; null for an unknown id and another account's alike. */
  find(accountId: string, id: string): Promise<CatalogSource | null>;
  update(source: CatalogSource): Promise<void>;
  delete(accountId: string, id: string): Promise<boolean>;
  /**
   * Claims up to `limit` sources due at `now` (next pull passed, no claim alive): each is marked
   * as being pulled until `leaseUntil`, so two processes never pull one source at once.
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<CatalogSource[]>;
  /** Claims one source for a pull now, whatever its schedule; null when another pull holds it. */
  claim(accountId: string, id: string, now: Date, leaseUntil: Date): Promise<CatalogSource | null>;
  /** Records a pull, keeps the last `keep` of the source, stores the validators and the next pull time, and releases the claim. */
  finishPull(pull: SourcePull, next: { etag: string | null; lastModified: string | null; nextPullAt: Date }, keep: number): Promise<void>;
  /** The last `limit` pulls of each source, newest first. */
  pulls(sourceIds: readonly string[], limit: number): Promise<Map<string, SourcePull[]>>;
}

/** What a download gave: nothing new (304), or the feed's records to import. */
export type FeedDownload =
  | { status: 'not_modified' }
  | {
      status: 'ok';
      records: AsyncIterable<FeedRecord>;
      etag: string | null;
      lastModified: string | null;
      /** Removes what the download left on disk. */
      dispose(): Promise<void>;
    };

export interface FeedDownloader {
  /** Why this format and mapping cannot be read, or null (checked when a source is saved). */
  checkOptions(options: { format: string | null; mapping: Record<string, string | string[]> | null }): string | null;
  /** Why this URL may not be pulled (shape and, by DNS, private addresses), or null. */
  checkUrl(url: string): Promise<string | null>;
  /**
   * Downloads the feed, conditionally on the validators; throws an Error whose message says why
   * the download failed (status, timeout, size, an address refused at connect time, a file that
   * cannot be read as the format).
   */
  download(source: CatalogSource): Promise<FeedDownload>;
}
