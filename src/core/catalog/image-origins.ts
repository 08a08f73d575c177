import type { CatalogStore } from '../ports.js';

/** A CSP list stays short: the hosts most of the catalog's images come from. */
export const MAX_IMAGE_ORIGINS = 50;

/**
 * The https origins the catalog's product images come from, most images first: what the MCP
 * Apps view declares in `_meta.ui.csp.resourceDomains` so hosts let its <img> tags load. Read by
 * scanning the catalog once per catalog version; other schemes are left out (a sandboxed view
 * cannot load them anyway, and shows its placeholder).
 */
export class ImageOrigins {
  private cached: { version: number; origins: Promise<string[]> } | null = null;

  constructor(private readonly catalog: Pick<CatalogStore, 'info' | 'scanProducts'> | undefined) {}

  async list(): Promise<string[]> {
    const info = this.catalog ? await this.catalog.info() : null;
    if (!this.catalog || info === null) return [];
    if (this.cached?.version !== info.version) this.cached = { version: info.version, origins: scan(this.catalog) };
    return this.cached.origins;
  }
}

async function scan(catalog: Pick<CatalogStore, 'scanProducts'>): Promise<string[]> {
  const counts = new Map<string, number>();
  for await (const batch of catalog.scanProducts()) {
    for (const p of batch) {
      const origin = httpsOrigin(p.imageUrl);
      if (origin !== null) counts.set(origin, (counts.get(origin) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_IMAGE_ORIGINS).map(([o]) => o);
}

function httpsOrigin(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}
