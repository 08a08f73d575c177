import { refuseTestMode } from '../../acp-feeds/feed-service.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import { newId, parseId, prefixedId } from '../../ids.js';
import type { Meter } from '../../metering.js';
import type { CreateSourceBody, PullRecord, SourceList, SourceRecord, UpdateSourceBody } from '../../schemas/catalog-sources.js';
import type { Embedder, Logger, Principal } from '../../shared-ports.js';
import { storableText } from '../../storable-text.js';
import { type ImportProgress, importCatalog, type ProductPlacer } from '../import.js';
import type { CatalogStore } from '../ports.js';
import type { CatalogSource, CatalogSourceStore, FeedDownloader, SourcePull } from './ports.js';

const MAX_SOURCES_PER_ACCOUNT = 20;
/** Pulls kept per source. */
const PULLS_KEPT = 20;
/** How long a claimed pull holds its source: past it (a process that died mid-pull) another may pull. */
const PULL_LEASE_MS = 2 * 3_600_000;
/** A failed pull is tried again this soon at the latest, whatever the schedule. */
const RETRY_AFTER_FAILURE_MS = 15 * 60_000;
/** Sources pulled per scheduler tick, one after the other. */
const PULLS_PER_TICK = 5;

export interface CatalogSourceDeps {
  store: CatalogSourceStore;
  downloader: FeedDownloader;
  clock: Clock;
  logger: Logger;
  /** Without them (a server started without search) sources can be managed but pulls fail. */
  catalog?: CatalogStore;
  embedder?: Embedder;
  /** Places pulled products in the taxonomy (import.ts). */
  placer?: ProductPlacer;
  /** After a pull published a version: this process warms it. */
  onPublished?: () => Promise<void>;
  /** Told how each pull ended (docs/operations.md). */
  meter?: Pick<Meter, 'feedPull' | 'importRunning' | 'importProgressed'>;
}

/**
 * Feeds pulled on a schedule into the catalog (docs/ingest.md, "Feeds pulled on a schedule").
 * A source belongs to the account that registered it; another account's is 404 like an unknown
 * one. A pull downloads the feed conditionally (ETag, Last-Modified), imports it as `npm run
 * ingest` does (only what changed is written), and is recorded; a failed or malformed pull
 * records why and leaves the catalog serving what it had.
 */
export class CatalogSourceService {
  constructor(private readonly deps: CatalogSourceDeps) {}

  async create(principal: Principal, body: CreateSourceBody): Promise<SourceRecord> {
    refuseTestMode(principal);
    await this.check({ url: body.url, format: body.format ?? null, mapping: body.mapping ?? null });
    if ((await this.deps.store.count(principal.accountId)) >= MAX_SOURCES_PER_ACCOUNT) {
      throw new AppError('source_limit_reached', `An account can hold at most ${MAX_SOURCES_PER_ACCOUNT} catalog sources; delete unused ones first.`);
    }
    const now = this.deps.clock.now();
    const source: CatalogSource = {
      id: newId(),
      accountId: principal.accountId,
      url: body.url,
      format: body.format ?? null,
      mapping: body.mapping ?? null,
      merchant: body.merchant ?? null,
      scheduleMinutes: body.schedule,
      etag: null,
      lastModified: null,
      // The first pull comes at the next scheduler tick.
      nextPullAt: now,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.create(source);
    return render(source, []);
  }

  async list(principal: Principal): Promise<SourceList> {
    const sources = await this.deps.store.list(principal.accountId);
    const pulls = await this.deps.store.pulls(
      sources.map((s) => s.id),
      PULLS_KEPT,
    );
    return { data: sources.map((s) => render(s, pulls.get(s.id) ?? [])) };
  }

  async get(principal: Principal, rawId: string): Promise<SourceRecord> {
    const source = await this.find(principal, rawId);
    return render(source, (await this.deps.store.pulls([source.id], PULLS_KEPT)).get(source.id) ?? []);
  }

  async update(principal: Principal, rawId: string, body: UpdateSourceBody): Promise<SourceRecord> {
    refuseTestMode(principal);
    const before = await this.find(principal, rawId);
    const next: CatalogSource = {
      ...before,
      ...(body.url === undefined ? {} : { url: body.url }),
      ...(body.format === undefined ? {} : { format: body.format }),
      ...(body.mapping === undefined ? {} : { mapping: body.mapping }),
      ...(body.merchant === undefined ? {} : { merchant: body.merchant }),
      ...(body.schedule === undefined ? {} : { scheduleMinutes: body.schedule }),
      updatedAt: this.deps.clock.now(),
    };
    await this.check(next);
    // Another URL or reading is another file: the validators of the old one no longer apply.
    if (next.url !== before.url || next.format !== before.format || JSON.stringify(next.mapping) !== JSON.stringify(before.mapping)) {
      next.etag = null;
      next.lastModified = null;
    }
    await this.deps.store.update(next);
    return this.get(principal, rawId);
  }

  async delete(principal: Principal, rawId: string): Promise<void> {
    refuseTestMode(principal);
    const source = await this.find(principal, rawId);
    await this.deps.store.delete(principal.accountId, source.id);
  }

  /** Pulls the source now (POST …/pull): the pull's record once it has finished; 409 while another pull of it runs. */
  async pullNow(principal: Principal, rawId: string): Promise<PullRecord> {
    refuseTestMode(principal);
    const source = await this.find(principal, rawId);
    const now = this.deps.clock.now();
    const claimed = await this.deps.store.claim(principal.accountId, source.id, now, new Date(now.getTime() + PULL_LEASE_MS));
    if (claimed === null) throw new AppError('conflict', 'This source is being pulled now; its result will be in its pulls.');
    return renderPull(await this.pull(claimed));
  }

  /** One scheduler tick: pulls the sources whose time has come (one process at a time per source). */
  async pullDue(): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.store.claimDue(now, new Date(now.getTime() + PULL_LEASE_MS), PULLS_PER_TICK);
    for (const source of due) await this.pull(source);
    return due.length;
  }

  private async pull(source: CatalogSource): Promise<SourcePull> {
    const startedAt = this.deps.clock.now();
    const counts = { new: 0, updated: 0, delta: 0, unchanged: 0, skipped: 0 };
    let status: SourcePull['status'] = 'ok';
    let error: string | null = null;
    let validators = { etag: source.etag, lastModified: source.lastModified };
    try {
      const { catalog, embedder } = this.deps;
      if (!catalog || !embedder) throw new Error('search is not configured on this server, so feeds cannot be imported');
      const download = await this.deps.downloader.download(source);
      if (download.status === 'not_modified') {
        status = 'not_modified';
      } else {
        try {
          const reported: Record<string, number> = {};
          const meter = this.deps.meter;
          meter?.importRunning(1);
          const summary = await importCatalog(
            download.records,
            { catalog, embedder, ...(this.deps.placer ? { placer: this.deps.placer } : {}) },
            {
              replace: false,
              dryRun: false,
              fitRanking: true,
              ...(source.merchant === null ? {} : { defaults: { merchant: source.merchant } }),
              // The metrics count what each batch added since the last report.
              ...(meter ? { onProgress: (p: ImportProgress) => meter.importProgressed(sinceLast({ ...p }, reported)) } : {}),
            },
          ).finally(() => meter?.importRunning(-1));
          Object.assign(counts, {
            new: summary.imported,
            updated: summary.updated,
            delta: summary.delta,
            unchanged: summary.unchanged,
            skipped: summary.skipped,
          });
          if (summary.catalog === null) {
            const reasons = Object.entries(summary.skippedByReason).map(([reason, n]) => `${reason} ${n}`);
            throw new Error(`no valid product in ${summary.read} rows${reasons.length > 0 ? ` (skipped: ${reasons.join(', ')})` : ''}`);
          }
          validators = { etag: download.etag, lastModified: download.lastModified };
        } finally {
          await download.dispose();
        }
        await this.deps.onPublished?.().catch((err: unknown) => this.deps.logger.warn({ err }, 'warming the catalog after a feed pull failed'));
      }
    } catch (err) {
      status = 'failed';
      error = storableText(err instanceof Error ? err.message : String(err), REASON_CHARS);
    }
    const finishedAt = this.deps.clock.now();
    const pull: SourcePull = { id: newId(), sourceId: source.id, startedAt, finishedAt, status, error, products: counts };
    const wait = status === 'failed' ? Math.min(source.scheduleMinutes * 60_000, RETRY_AFTER_FAILURE_MS) : source.scheduleMinutes * 60_000;
    try {
      await this.deps.store.finishPull(pull, { ...validators, nextPullAt: new Date(finishedAt.getTime() + wait) }, PULLS_KEPT);
    } catch (err) {
      // The record is what releases the claim: one the database refuses is recorded again without
      // its details, so the source is not left claimed for the lease's two hours.
      this.deps.logger.error({ err, source: prefixedId('source', source.id) }, 'recording a feed pull failed; recording it as failed without its details');
      const bare: SourcePull = { ...pull, status: 'failed', error: 'the pull could not be recorded; the server log has the details' };
      await this.deps.store.finishPull(
        bare,
        { etag: source.etag, lastModified: source.lastModified, nextPullAt: new Date(finishedAt.getTime() + RETRY_AFTER_FAILURE_MS) },
        PULLS_KEPT,
      );
      this.deps.meter?.feedPull('failed');
      return bare;
    }
    this.deps.meter?.feedPull(status);
    const log = { source: prefixedId('source', source.id), status, error, products: counts, ms: finishedAt.getTime() - startedAt.getTime() };
    if (status === 'failed') this.deps.logger.warn(log, 'catalog source pull failed; the catalog keeps serving what it had');
    else this.deps.logger.info(log, 'catalog source pulled');
    return pull;
  }

  private async check(source: { url: string; format: string | null; mapping: Record<string, string | string[]> | null }): Promise<void> {
    const options = this.deps.downloader.checkOptions(source);
    if (options !== null) throw new AppError('validation_failed', options);
    const url = await this.deps.downloader.checkUrl(source.url);
    if (url !== null) throw new AppError('source_url_not_allowed', `The feed URL ${url}.`);
  }

  private async find(principal: Principal, rawId: string): Promise<CatalogSource> {
    const id = parseId('source', rawId);
    const source = id === null ? null : await this.deps.store.find(principal.accountId, id);
    if (source === null) throw new AppError('not_found', `No catalog source ${rawId} in this account.`);
    return source;
  }
}

/** A pull's reason is one line a person reads; past this it is cut. */
const REASON_CHARS = 500;

const renderPull = (p: SourcePull): PullRecord => ({
  id: prefixedId('pull', p.id),
  started_at: p.startedAt.toISOString(),
  finished_at: p.finishedAt.toISOString(),
  status: p.status,
  ...(p.error === null ? {} : { error: p.error }),
  products: p.products,
});

const render = (s: CatalogSource, pulls: readonly SourcePull[]): SourceRecord => ({
  id: prefixedId('source', s.id),
  url: s.url,
  format: s.format as SourceRecord['format'],
  mapping: s.mapping,
  merchant: s.merchant,
  schedule: s.scheduleMinutes,
  next_pull_at: s.nextPullAt.toISOString(),
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
  last_pull: pulls[0] ? renderPull(pulls[0]) : null,
  pulls: pulls.map(renderPull),
});

/** What grew since the last report (`last` is updated to `now`). */
function sinceLast(now: Readonly<Record<string, number>>, last: Record<string, number>): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [k, v] of Object.entries(now)) {
    if (v > (last[k] ?? 0)) grown[k] = v - (last[k] ?? 0);
    last[k] = v;
  }
  return grown;
}
