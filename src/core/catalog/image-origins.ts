import type { CatalogStore } from './ports.js';

/** A CSP list stays short: the hosts most of the catalog's images come from. */
const MAX_IMAGE_ORIGINS = 50;

/**
 * The https origins the catalog's product images come from, most images first: what the MCP
 * Apps view declares in `_meta.ui.csp.resourceDomains` and the console puts in its `img-src`, so
 * product images load. Read by scanning the catalog once per catalog version; other schemes are
 * left out (a sandboxed view cannot load them anyway, and shows its placeholder).
 */
export class ImageOrigins {
  private cached: { version: number; origins: Promise<string[]> } | null = null;

  constructor(private readonly catalog: Pick<CatalogStore, 'info' | 'scanProducts'> | undefined) {}

  async list(): Promise<string[]> {
    const info = this.catalog ? await this.catalog.info() : null;
    if (!this.catalog || info === null) return [];
    if (this.cached?.version !== info.version) {
      const entry = { version: info.version, origins: scan(this.catalog) };
      // A failed scan is not kept: the next call scans again instead of failing until the next import.
      entry.origins.catch(() => {
        if (this.cached === entry) this.cached = null;
      });
      this.cached = entry;
    }
    return this.cached.origins;
  }
}

async function scan(catalog: Pick<CatalogStore, 'scanProducts'>): Promise<string[]> {
  const counts = new Map<string, number>();
  for await (const batch of catalog.scanProducts()) {
    for (const p of batch) {
      const origin = cspSafeOrigin(p.imageUrl);
      if (origin !== null) counts.set(origin, (counts.get(origin) ?? 0) + 1);
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_IMAGE_ORIGINS)
    .map(([o]) => o);
}

/** DNS labels (letters, digits, inner hyphens; IDNs arrive as xn-- punycode), then an optional port. */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The `https://host[:port]` origin of an image URL, or null. The WHATWG URL parser accepts hosts
 * such as `img.example;sandbox` or `a.example,'unsafe-inline'`, and an origin goes verbatim into
 * a Content-Security-Policy header, where `;` starts a new directive: only hosts of the strict
 * hostname grammar are kept.
 */
export function cspSafeOrigin(url: string | null | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' || !HOSTNAME.test(parsed.hostname)) return null;
  if (parsed.port !== '' && !/^\d{1,5}$/.test(parsed.port)) return null;
  return parsed.origin;
}
