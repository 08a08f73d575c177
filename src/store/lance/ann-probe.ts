import type { Table } from '@lancedb/lancedb';
import type { AnnIndexKind } from '../../core/catalog/ports.js';
import { cosineOf } from '../../core/ranking/vectors.js';
import { type AnnTuning, nearestQuery } from './indexes.js';

/** Probe queries per measurement: enough to see a recall below 0.98, few enough that 1M products take seconds, not minutes. */
const PROBES = 32;

/**
 * Recall@`depth` of the index path against exact search on this table, as search uses it (the
 * index's candidates re-scored exactly). The probes are the normalised means of two of the
 * catalog's own vectors from distant rows, so they fall between products the way a request
 * does rather than onto one. Deterministic for a given table.
 */
export async function probeAnnRecall(
  table: Table,
  rows: number,
  ann: { kind: Exclude<AnnIndexKind, 'none'>; tuning?: Partial<AnnTuning> },
  depth: number,
): Promise<number> {
  const samples: Float32Array[] = [];
  for (let i = 0; i < 2 * PROBES && i < rows; i++) {
    const [row] = (await table
      .query()
      .select(['vector'])
      .offset(Math.floor(((i + 0.5) * rows) / (2 * PROBES)))
      .limit(1)
      .toArray()) as { vector: { toArray(): ArrayLike<number> } }[];
    if (row) samples.push(Float32Array.from(row.vector.toArray()));
  }
  const half = Math.floor(samples.length / 2);
  let found = 0;
  let expected = 0;
  for (let i = 0; i < half; i++) {
    const probe = mean(samples[i]!, samples[i + half]!);
    const exact = await nearestQuery(table, probe, depth, null).select(['_distance']).withRowId().toArrow();
    const truth = new Set(Array.from(exact.getChild('_rowid')!.toArray() as BigUint64Array));
    const proposed = await nearestQuery(table, probe, depth, ann).select(['_distance', 'vector']).withRowId().toArrow();
    const ids = proposed.getChild('_rowid')!.toArray() as BigUint64Array;
    const vectors = proposed.getChild('vector')!;
    const rescored = Array.from(ids, (id, j) => ({
      id,
      d: 1 - cosineOf(probe, Float32Array.from((vectors.get(j) as { toArray(): ArrayLike<number> }).toArray())),
    }));
    rescored.sort((a, b) => a.d - b.d);
    found += rescored.slice(0, depth).filter((r) => truth.has(r.id)).length;
    expected += truth.size;
  }
  return expected === 0 ? 1 : found / expected;
}

function mean(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i]! + b[i]!) / 2;
  return out;
}
