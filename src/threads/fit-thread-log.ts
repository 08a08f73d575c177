import type { GlobalFitOptions } from '../core/learning/global-fit.js';
import type { LoggedResult } from '../core/learning/ports.js';
import type { RankingModel } from '../core/ranking/ranking.js';

/**
 * A logged result list as columns: one Float64Array of every result's features and small typed
 * arrays for the rest, so handing tens of thousands of results to the thread costs a transfer
 * and five string columns, not a structured clone of as many objects.
 */
export interface PackedLog {
  width: number;
  features: Float64Array;
  positions: Int16Array;
  /** Bit 0 clicked, bit 1 converted; votes: 1 relevant, -1 not, 0 none. */
  flags: Uint8Array;
  votes: Int8Array;
  requestIds: string[];
  sessionIds: string[];
  queries: string[];
  productIds: string[];
}

export interface FitRequest {
  log: PackedLog;
  serving: RankingModel;
  source: string;
  options: GlobalFitOptions;
  incumbent: RankingModel | undefined;
}

export function packLog(log: readonly LoggedResult[]): PackedLog {
  const width = log[0]?.features.length ?? 0;
  const features = new Float64Array(log.length * width);
  const positions = new Int16Array(log.length);
  const flags = new Uint8Array(log.length);
  const votes = new Int8Array(log.length);
  log.forEach((r, i) => {
    // A row of another width (an older feature set) is kept as zeros of this width with position 0, which every fit skips.
    if (r.features.length === width) features.set(r.features, i * width);
    positions[i] = r.features.length === width ? r.position : 0;
    flags[i] = (r.clicked ? 1 : 0) | (r.converted ? 2 : 0);
    votes[i] = r.vote === null ? 0 : r.vote ? 1 : -1;
  });
  return {
    width,
    features,
    positions,
    flags,
    votes,
    requestIds: log.map((r) => r.requestId),
    sessionIds: log.map((r) => r.sessionId),
    queries: log.map((r) => r.query),
    productIds: log.map((r) => r.productId),
  };
}

export function unpackLog(p: PackedLog): LoggedResult[] {
  return p.positions.reduce<LoggedResult[]>((out, position, i) => {
    out.push({
      requestId: p.requestIds[i]!,
      sessionId: p.sessionIds[i]!,
      query: p.queries[i]!,
      productId: p.productIds[i]!,
      position,
      features: Array.from(p.features.subarray(i * p.width, (i + 1) * p.width)),
      clicked: (p.flags[i]! & 1) !== 0,
      converted: (p.flags[i]! & 2) !== 0,
      vote: p.votes[i] === 0 ? null : p.votes[i] === 1,
    });
    return out;
  }, []);
}
