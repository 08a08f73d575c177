import type { CatalogSource, CatalogSourceStore, SourcePull } from '../../core/catalog/sources/ports.js';
import type { Db } from './db.js';

interface SourceRow {
  id: string;
  account_id: string;
  url: string;
  format: string | null;
  mapping: Record<string, string | string[]> | null;
  merchant: string | null;
  schedule_minutes: number;
  etag: string | null;
  last_modified: string | null;
  next_pull_at: Date;
  created_at: Date;
  updated_at: Date;
}

interface PullRow {
  id: string;
  source_id: string;
  started_at: Date;
  finished_at: Date;
  status: SourcePull['status'];
  error: string | null;
  products: SourcePull['products'];
}

const COLUMNS = 'id, account_id, url, format, mapping, merchant, schedule_minutes, etag, last_modified, next_pull_at, created_at, updated_at';

const toSource = (r: SourceRow): CatalogSource => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  format: r.format,
  mapping: r.mapping,
  merchant: r.merchant,
  scheduleMinutes: Number(r.schedule_minutes),
  etag: r.etag,
  lastModified: r.last_modified,
  nextPullAt: new Date(r.next_pull_at),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

const toPull = (r: PullRow): SourcePull => ({
  id: r.id,
  sourceId: r.source_id,
  startedAt: new Date(r.started_at),
  finishedAt: new Date(r.finished_at),
  status: r.status,
  error: r.error,
  products: r.products,
});

/** $1…$9 of both create and update: the source's key, then the columns an update rewrites. */
const sourceValues = (s: CatalogSource): unknown[] => [
  s.id,
  s.accountId,
  s.url,
  s.format,
  s.mapping === null ? null : JSON.stringify(s.mapping),
  s.merchant,
  s.scheduleMinutes,
  s.etag,
  s.lastModified,
];

export class PgCatalogSourceStore implements CatalogSourceStore {
  constructor(private readonly db: Db) {}

  async create(s: CatalogSource): Promise<void> {
    await this.db.query(`INSERT INTO catalog_sources (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
      ...sourceValues(s),
      s.nextPullAt,
      s.createdAt,
      s.updatedAt,
    ]);
  }

  async count(accountId: string): Promise<number> {
    const [row] = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog_sources WHERE account_id = $1', [accountId]);
    return Number(row?.n ?? 0);
  }

  async list(accountId: string): Promise<CatalogSource[]> {
    return (await this.db.query<SourceRow>(`SELECT ${COLUMNS} FROM catalog_sources WHERE account_id = $1 ORDER BY created_at DESC, id`, [accountId])).map(
      toSource,
    );
  }

  async find(accountId: string, id: string): Promise<CatalogSource | null> {
    const [row] = await this.db.query<SourceRow>(`SELECT ${COLUMNS} FROM catalog_sources WHERE id = $1 AND account_id = $2`, [id, accountId]);
    return row ? toSource(row) : null;
  }

  async update(s: CatalogSource): Promise<void> {
    await this.db.query(
      `UPDATE catalog_sources SET url = $3, format = $4, mapping = $5, merchant = $6, schedule_minutes = $7, etag = $8, last_modified = $9, updated_at = $10
       WHERE id = $1 AND account_id = $2`,
      [...sourceValues(s), s.updatedAt],
    );
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM catalog_sources WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId])).length > 0;
  }

  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<CatalogSource[]> {
    // SKIP LOCKED: processes ticking together each take other sources, never the same one.
    const rows = await this.db.query<SourceRow>(
      `UPDATE catalog_sources SET pulling_until = $2
       WHERE id IN (
         SELECT id FROM catalog_sources
         WHERE next_pull_at <= $1 AND (pulling_until IS NULL OR pulling_until < $1)
         ORDER BY next_pull_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [now, leaseUntil, limit],
    );
    return rows.map(toSource);
  }

  async claim(accountId: string, id: string, now: Date, leaseUntil: Date): Promise<CatalogSource | null> {
    const [row] = await this.db.query<SourceRow>(
      `UPDATE catalog_sources SET pulling_until = $4
       WHERE id = $1 AND account_id = $2 AND (pulling_until IS NULL OR pulling_until < $3)
       RETURNING ${COLUMNS}`,
      [id, accountId, now, leaseUntil],
    );
    return row ? toSource(row) : null;
  }

  finishPull(p: SourcePull, next: { etag: string | null; lastModified: string | null; nextPullAt: Date }, keep: number): Promise<void> {
    return this.db.transaction(async (tx) => {
      // A source deleted while it was pulled takes no record.
      const updated = await tx.query(
        'UPDATE catalog_sources SET etag = $2, last_modified = $3, next_pull_at = $4, pulling_until = NULL WHERE id = $1 RETURNING id',
        [p.sourceId, next.etag, next.lastModified, next.nextPullAt],
      );
      if (updated.length === 0) return;
      await tx.query('INSERT INTO catalog_source_pulls (id, source_id, started_at, finished_at, status, error, products) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        p.id,
        p.sourceId,
        p.startedAt,
        p.finishedAt,
        p.status,
        p.error,
        JSON.stringify(p.products),
      ]);
      await tx.query(
        `DELETE FROM catalog_source_pulls WHERE source_id = $1 AND id NOT IN (
           SELECT id FROM catalog_source_pulls WHERE source_id = $1 ORDER BY started_at DESC, id LIMIT $2)`,
        [p.sourceId, keep],
      );
    });
  }

  async pulls(sourceIds: readonly string[], limit: number): Promise<Map<string, SourcePull[]>> {
    const out = new Map<string, SourcePull[]>();
    if (sourceIds.length === 0) return out;
    const rows = await this.db.query<PullRow>(
      `SELECT id, source_id, started_at, finished_at, status, error, products FROM (
         SELECT *, row_number() OVER (PARTITION BY source_id ORDER BY started_at DESC, id) AS n
         FROM catalog_source_pulls WHERE source_id = ANY($1::uuid[])) p
       WHERE n <= $2 ORDER BY started_at DESC, id`,
      [sourceIds, limit],
    );
    for (const row of rows) {
      const list = out.get(row.source_id) ?? [];
      list.push(toPull(row));
      out.set(row.source_id, list);
    }
    return out;
  }
}
