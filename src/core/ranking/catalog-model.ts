import type { CatalogStore } from '../catalog/ports.js';
import { FALLBACK_MODEL, parseRankingModel, type RankingModel } from './ranking.js';

/**
 * The ranking model of the catalog version being served, read on every call: a process that moves
 * to a new version (src/catalog/refresh.ts) ranks with the model that version carries from its next
 * search, with no restart. Parsed once per stored model; the fallback model when the version
 * carries none or one that does not validate.
 */
export function catalogRankingModel(catalog: Pick<CatalogStore, 'servingRankingModel'>): () => RankingModel {
  let raw: unknown;
  let parsed: RankingModel = FALLBACK_MODEL;
  let read = false;
  return () => {
    const now = catalog.servingRankingModel();
    if (!read || now !== raw) {
      raw = now;
      parsed = parseRankingModel(now) ?? FALLBACK_MODEL;
      read = true;
    }
    return parsed;
  };
}
