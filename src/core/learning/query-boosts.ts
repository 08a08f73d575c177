/**
 * Per-query learning (docs/learning.md; like Algolia's Dynamic Re-Ranking): for a query people have
 * searched before, products that earned more clicks and conversions than the positions they were
 * shown at predict rank higher, and products consistently skipped rank lower. "Predict" divides
 * by the position's examination propensity (position-bias.ts), so a product is not rewarded for
 * having been on top.
 */

import type { QueryEvent } from './ports.js';
import type { PositionBias } from './position-bias.js';
import { clippedPropensity } from './position-bias.js';

export interface QueryBoostOptions {
  /** Examinations (Σ propensity) a product needs before anything moves. */
  minExposure?: number;
  /** Pseudo-examinations at the query's own click rate: few observations stay near 1×. */
  priorExposure?: number;
  /** A conversion counts as this many clicks. */
  conversionWeight?: number;
  /** Multipliers are bounded: learning reorders close calls, it does not bury or crown a product. */
  min?: number;
  max?: number;
}

/**
 * Rank-score multipliers for one query, from productEvidence(). A product's attractiveness is its
 * (clicks + conversions) over its examinations Σ θ, smoothed towards the query's own rate; the
 * multiplier is the square root of its ratio to that rate, clamped. Products below the evidence
 * floor get no entry (1×).
 */
export function queryBoosts(events: readonly QueryEvent[], bias: PositionBias, options: QueryBoostOptions = {}): Map<string, number> {
  const minExposure = options.minExposure ?? 3;
  const priorExposure = options.priorExposure ?? 2;
  const conversionWeight = options.conversionWeight ?? 1;
  const min = options.min ?? 0.67;
  const max = options.max ?? 1.5;

  const byProduct = productEvidence(events, bias, conversionWeight);
  let exposure = 0;
  let reward = 0;
  for (const p of byProduct.values()) {
    exposure += p.exposure;
    reward += p.reward;
  }
  const boosts = new Map<string, number>();
  // No click at all for the query says nothing about which of its products is better.
  if (reward === 0 || exposure === 0) return boosts;
  const rate = reward / exposure;
  for (const [productId, p] of byProduct) {
    if (p.exposure < minExposure) continue;
    const smoothed = (p.reward + priorExposure * rate) / (p.exposure + priorExposure);
    boosts.set(productId, Math.min(max, Math.max(min, Math.sqrt(smoothed / rate))));
  }
  return boosts;
}

/**
 * Per product of one query: its examinations Σ θ (clipped propensity of the position it was
 * shown at) and its reward (clicks plus weighted conversions). Each (session, product) counts
 * once, at its best-seen position, so one person or one busy session cannot dominate.
 */
export function productEvidence(events: readonly QueryEvent[], bias: PositionBias, conversionWeight = 1): Map<string, { exposure: number; reward: number }> {
  const perView = new Map<string, { productId: string; position: number; clicked: boolean; converted: boolean }>();
  for (const e of events) {
    if (!Number.isInteger(e.position) || e.position < 1) continue;
    const key = `${e.sessionId}\u0000${e.productId}`;
    const seen = perView.get(key);
    if (!seen) perView.set(key, { productId: e.productId, position: e.position, clicked: e.clicked, converted: e.converted });
    else {
      seen.position = Math.min(seen.position, e.position);
      seen.clicked ||= e.clicked;
      seen.converted ||= e.converted;
    }
  }
  const byProduct = new Map<string, { exposure: number; reward: number }>();
  for (const v of perView.values()) {
    const p = byProduct.get(v.productId) ?? { exposure: 0, reward: 0 };
    p.exposure += clippedPropensity(bias, v.position);
    p.reward += (v.clicked ? 1 : 0) + (v.converted ? conversionWeight : 0);
    byProduct.set(v.productId, p);
  }
  return byProduct;
}
