import type { Connection, Table } from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import type { AnnIndexKind, CatalogInfo } from '../../core/catalog/ports.js';
import { META_TABLE, metaSchema } from './rows.js';

/** Whether `uri` is a local directory rather than an object-store URI (s3://…). */
export const isLocal = (uri: string) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(uri);

interface RetiredVersion {
  version: number;
  /** When the pointer left it (ms since the epoch). */
  at: number;
}

/**
 * Writes `rows` as the whole table: overwriting it when it exists, creating it otherwise (an
 * overwrite of a table that does not exist yet makes LanceDB log a warning on every first start).
 */
export async function replaceTable(conn: Connection, name: string, rows: Record<string, unknown>[], schema: Schema): Promise<void> {
  const mode = (await conn.tableNames()).includes(name) ? 'overwrite' : 'create';
  await conn.createTable(name, rows, { mode, schema });
}

/** The pointer the meta table holds, or null when there is none. */
export async function readMeta(conn: Connection): Promise<{ info: CatalogInfo; rankingModel: string | null; retired: RetiredVersion[] } | null> {
  const names = await conn.tableNames();
  if (!names.includes(META_TABLE)) return null;
  const meta = await conn.openTable(META_TABLE);
  try {
    const [row] = (await meta.query().limit(1).toArray()) as Record<string, unknown>[];
    if (!row) return null;
    const info: CatalogInfo = {
      model: String(row.model),
      dimensions: Number(row.dimensions),
      version: Number(row.products_version),
      productCount: Number(row.product_count),
      annIndex: String(row.ann_index) as AnnIndexKind,
      updatedAt: new Date(Number(row.updated_at instanceof Date ? row.updated_at.getTime() : row.updated_at)),
      // Catalogs published before the probe existed have no such column.
      annRecall: typeof row.ann_recall === 'number' ? row.ann_recall : null,
    };
    // Nor, before versions carried their model and history, these.
    const retired = typeof row.retired === 'string' ? (JSON.parse(row.retired) as RetiredVersion[]) : [];
    return { info, rankingModel: typeof row.ranking_model === 'string' ? row.ranking_model : null, retired };
  } finally {
    meta.close();
  }
}

/**
 * Writes the pointer: one overwrite of the one-row meta table, which is a single atomic commit.
 * The version carries `rankingModel` (JSON) when given, else the model the pointer carried before
 * when the embedding model is the same: a new version of the same catalog keeps its model until
 * an import's fit or npm run calibrate stores another.
 */
export async function writeMeta(conn: Connection, info: CatalogInfo, rankingModel: string | null | undefined, retentionMs: number): Promise<void> {
  const before = await readMeta(conn);
  const model = rankingModel !== undefined ? rankingModel : before !== null && before.info.model === info.model ? before.rankingModel : null;
  const now = Date.now();
  const retired = (before?.retired ?? []).filter((r) => r.at >= now - retentionMs);
  if (before !== null && before.info.version !== info.version) retired.push({ version: before.info.version, at: now });
  const row = {
    model: info.model,
    dimensions: info.dimensions,
    products_version: info.version,
    product_count: info.productCount,
    ann_index: info.annIndex,
    updated_at: info.updatedAt,
    ann_recall: info.annRecall,
    ranking_model: model,
    retired: JSON.stringify(retired),
  };
  await replaceTable(conn, META_TABLE, [row], metaSchema());
}

/**
 * The date before which versions of `table` may be removed: the creation time of the oldest
 * version a process may still serve (the pointer's, or one the pointer left within the
 * retention window), and never later than the window's start. A process that follows the
 * pointer keeps its version's files so.
 */
export async function cleanupCutoff(conn: Connection, table: Table, retentionMs: number): Promise<Date> {
  const now = Date.now();
  const meta = await readMeta(conn);
  const windowStart = now - retentionMs;
  if (meta === null) return new Date(windowStart);
  const served = [meta.info.version, ...meta.retired.filter((r) => r.at >= windowStart).map((r) => r.version)];
  const oldest = Math.min(...served);
  const versions = await table.listVersions();
  const created = versions.find((v) => v.version === oldest)?.timestamp.getTime() ?? Math.min(...versions.map((v) => v.timestamp.getTime()));
  return new Date(Math.min(created, windowStart));
}
