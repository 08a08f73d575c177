import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { FeedRecord } from '../../core/catalog/import.js';
import type { CatalogSource, FeedDownload, FeedDownloader } from '../../core/catalog/sources/ports.js';
import { checkWebhookUrl, type HostResolver } from '../../core/webhooks/url-guard.js';
import { OutboundClient, OutboundError } from '../../outbound/client.js';
import { type LookupAll, systemResolver } from '../../outbound/dns.js';
import { ByteCounter } from '../../outbound/limits.js';
import { CsvMappingSchema } from './csv.js';
import { readFeed } from './detect.js';
import { FEED_FORMATS, type FeedFormat } from './types.js';

export interface HttpFeedDownloaderOptions {
  /** AISLE_FEED_ALLOW_PRIVATE: http and private addresses allowed (local feeds, tests). */
  allowPrivate: boolean;
  /** Largest feed accepted, after decompression (AISLE_FEED_MAX_MB). */
  maxBytes: number;
  /** Longest wait for the answer's headers, and for each further piece of its body: a stalled server fails the pull (AISLE_FEED_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
  /** Longest a whole download may take (AISLE_FEED_TIMEOUT_MS). */
  totalTimeoutMs?: number;
  /** Tests stand in for DNS; production uses dns.lookup. */
  lookupAll?: LookupAll;
  resolver?: HostResolver;
}

const IDLE_TIMEOUT_MS = 30_000;
const TOTAL_TIMEOUT_MS = 30 * 60_000;

/** A reader's error names the temporary file; the pull's record says "the feed" instead. */
function renamed(dir: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(message.replace(new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[a-z]+`, 'g'), 'the feed'));
}

async function withFeedErrors<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw renamed(dir, err);
  }
}

async function* namedRecords(dir: string, records: AsyncIterable<FeedRecord>): AsyncGenerator<FeedRecord> {
  try {
    yield* records;
  } catch (err) {
    throw renamed(dir, err);
  }
}

/**
 * Feed downloads for catalog sources (docs/ingest.md, "Feeds pulled on a schedule"): through the
 * outbound client (src/outbound/client.ts): the SSRF guard (https only and public addresses,
 * checked by name when a source is saved and at connect time on every pull); conditional
 * (If-None-Match, If-Modified-Since); a body that does not keep to its Content-Length fails;
 * gzip, declared or not, decompressed; bounded in size after decompression, in idle time and in
 * total time; a redirect is an error naming where it pointed. The file lands in a temporary
 * folder, removed whatever happens, and is read by the same readers as `npm run ingest`.
 */
export class HttpFeedDownloader implements FeedDownloader {
  private readonly client: OutboundClient;

  constructor(private readonly options: HttpFeedDownloaderOptions) {
    this.client = new OutboundClient({ allowPrivate: options.allowPrivate, ...(options.lookupAll ? { lookupAll: options.lookupAll } : {}) });
  }

  checkOptions(o: { format: string | null; mapping: Record<string, string | string[]> | null }): string | null {
    if (o.format !== null && !FEED_FORMATS.includes(o.format as FeedFormat)) return `format must be one of ${FEED_FORMATS.join(', ')}`;
    if (o.mapping === null) return null;
    if (o.format !== null && o.format !== 'csv') return 'mapping applies to CSV feeds only';
    const parsed = CsvMappingSchema.safeParse(o.mapping);
    return parsed.success ? null : `mapping: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'mapping'} ${i.message}`).join('; ')}`;
  }

  checkUrl(url: string): Promise<string | null> {
    return checkWebhookUrl(url, { allowPrivate: this.options.allowPrivate, resolver: this.options.resolver ?? systemResolver });
  }

  async download(source: CatalogSource): Promise<FeedDownload> {
    const refused = await this.checkUrl(source.url);
    if (refused !== null) throw new Error(`the feed URL ${refused}`);
    const dir = await mkdtemp(join(tmpdir(), 'aisle-feed-'));
    const dispose = () => rm(dir, { recursive: true, force: true });
    try {
      const raw = join(dir, 'download');
      let res: Awaited<ReturnType<OutboundClient['download']>>;
      try {
        res = await this.client.download(
          source.url,
          {
            headers: {
              'user-agent': 'Aisle-Feed-Puller/1 (+docs/ingest.md)',
              'accept-encoding': 'gzip',
              ...(source.etag === null ? {} : { 'if-none-match': source.etag }),
              ...(source.lastModified === null ? {} : { 'if-modified-since': source.lastModified }),
            },
            timeoutMs: this.options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS,
            idleTimeoutMs: this.options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
            maxBytes: this.options.maxBytes,
          },
          raw,
        );
      } catch (err) {
        const message = (err as Error).message.replace(/^the answer/, 'the feed');
        throw new Error(err instanceof OutboundError && err.kind === 'too_large' ? `${message} (AISLE_FEED_MAX_MB)` : message);
      }
      if (res.status === 304) {
        await dispose();
        return { status: 'not_modified' };
      }
      if (res.status !== 200) {
        const location = res.headers.location;
        throw new Error(
          `the server answered ${res.status}${res.status >= 300 && res.status < 400 && location ? ` (a redirect to ${String(location)}: register that URL)` : ''}`,
        );
      }
      const file = await this.decompressed(raw, dir);
      const feed = await withFeedErrors(dir, () =>
        readFeed(file, {
          ...(source.format === null ? {} : { format: source.format as FeedFormat }),
          ...(source.merchant === null ? {} : { merchant: source.merchant }),
          ...(source.mapping === null ? {} : { mapping: CsvMappingSchema.parse(source.mapping) }),
        }),
      );
      const etag = res.headers.etag;
      const lastModified = res.headers['last-modified'];
      return {
        status: 'ok',
        records: namedRecords(dir, feed.records),
        etag: typeof etag === 'string' ? etag : null,
        lastModified: typeof lastModified === 'string' ? lastModified : null,
        dispose,
      };
    } catch (err) {
      await dispose();
      throw err;
    }
  }

  /** The file as text: gzip (by its magic bytes, whatever the headers said) is decompressed, within the size limit. */
  private async decompressed(raw: string, dir: string): Promise<string> {
    const handle = await open(raw, 'r');
    const head = Buffer.alloc(2);
    try {
      await handle.read(head, 0, 2, 0);
    } finally {
      await handle.close();
    }
    if (head[0] !== 0x1f || head[1] !== 0x8b) return raw;
    const file = join(dir, 'feed');
    const counter = new ByteCounter(this.options.maxBytes);
    try {
      await pipeline(createReadStream(raw), createGunzip(), counter, createWriteStream(file));
    } catch (err) {
      if (counter.error !== null) throw new Error(`the feed is larger than ${this.options.maxBytes} bytes decompressed (AISLE_FEED_MAX_MB)`);
      throw new Error(`the feed is not valid gzip: ${(err as Error).message}`);
    }
    return file;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
