import { LRUCache } from 'lru-cache';
import type { CatalogStore } from '../catalog/ports.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, parseId, prefixedId } from '../ids.js';
import type { Meter } from '../metering.js';
import type { Click } from '../schemas/clicks.js';
import type { Principal } from '../shared-ports.js';
import { type AffiliateConfig, withAffiliateParams } from './affiliate.js';
import type { AttributionTokens } from './attribution.js';
import type { ClickLinkSigner } from './click-links.js';
import type { ClickStore, NewClick, StoredClick } from './ports.js';
import { classifyUserAgent } from './user-agents.js';

/** Clicks, and conversions after them, count within 30 days of the impression (docs/clicks.md). */
export const ATTRIBUTION_WINDOW_MS = 30 * 24 * 3600 * 1000;

export interface ClickServiceDeps {
  store: ClickStore;
  clock: Clock;
  links: ClickLinkSigner;
  affiliate: AffiliateConfig;
  /** The redirect carries the impression's attribution token too (`aisle_attr`). */
  attribution: Pick<AttributionTokens, 'token'>;
  /** Where products link to; without a catalog a click has no destination. */
  catalog?: CatalogStore;
  /** Told how long each click and its event took to write (docs/operations.md). */
  meter?: Pick<Meter, 'eventWritten'>;
}

/** How a followed link was counted; sent as the `aisle-click` response header. */
export type LinkOutcome = 'billable' | 'duplicate' | 'non_billable' | 'expired';

type Destination = { url: string; merchant: string | null } | null;

export interface LinkVisitor {
  userAgent: string | undefined;
  /** A request no person asked for even from a browser: a HEAD, a speculative prefetch. */
  automated: boolean;
}

/**
 * Records clicks (docs/clicks.md). The first click on an impression is the billable one; every later
 * click, at any time within the attribution window, gets that same click back as a duplicate. The
 * API promises this for 24 h; the billable click is unique per impression for good (a unique
 * constraint), so a repeat after 24 h is a duplicate too rather than a second, uncounted "click".
 */
export class ClickService {
  // Product URL and merchant per product id; short-lived so a re-import shows up within a minute.
  private readonly destinations = new LRUCache<string, { value: Destination }>({ max: 50_000, ttl: 60_000 });

  constructor(private readonly deps: ClickServiceDeps) {}

  /**
   * POST /clicks/{impression_id}. 201 with a new click, 200 with the original and `duplicate`;
   * 404 not_found for an unknown id or another account's; 410 impression_expired past 30 days.
   * An API click is always billable: the integrator reports a person's click.
   */
  async recordClick(principal: Principal, impressionRef: string): Promise<{ created: boolean; click: Click }> {
    const found = await this.findImpression(impressionRef, true);
    if (found === null || found.accountId !== principal.accountId) throw notFound(impressionRef);
    if (this.expired(found.createdAt)) throw expiredError();
    const livemode = principal.livemode !== false;
    if (found.existingClick) return { created: false, click: toClick(found.existingClick, true, livemode) };
    const { click, inserted } = await this.insert(found, { keyId: principal.keyId, source: 'api', billable: true, userAgentClass: 'api' });
    return { created: inserted, click: toClick(click, !inserted, livemode) };
  }

  /**
   * GET /r/{impression_id}?sig=: no key, the signature is the authority. 404 not_found for a bad
   * signature or an unknown impression. Otherwise the merchant URL to redirect to: a browser's
   * click counts like POST /clicks; a bot's is recorded as non-billable; past the window the
   * person still gets to the product but nothing is recorded.
   */
  async followLink(impressionRef: string, signature: string | undefined, visitor: LinkVisitor): Promise<{ location: string; outcome: LinkOutcome }> {
    const impressionId = parseId('impression', impressionRef);
    if (impressionId === null || !this.deps.links.verify(impressionId, signature)) {
      throw new AppError('not_found', 'This link is not valid. Use the click_url exactly as the search returned it.');
    }
    const billable = !visitor.automated && classifyUserAgent(visitor.userAgent) === 'browser';
    const found = await this.findImpression(impressionId, billable);
    if (found === null) throw notFound(impressionRef);
    if (this.expired(found.createdAt)) {
      const destination = await this.destination(found.productId);
      if (!destination) throw gone();
      return { location: destination.url, outcome: 'expired' };
    }
    const existing = found.existingClick;
    if (existing?.destinationUrl) return { location: existing.destinationUrl, outcome: billable ? 'duplicate' : 'non_billable' };
    if (existing) throw gone();
    // Nowhere to send the person (the product left the catalog or has no link): nothing to count.
    if ((await this.destination(found.productId)) === null) throw gone();
    const { click, inserted } = await this.insert(found, { keyId: null, source: 'link', billable, userAgentClass: billable ? 'browser' : 'bot' });
    if (!click.destinationUrl) throw gone();
    return { location: click.destinationUrl, outcome: !billable ? 'non_billable' : inserted ? 'billable' : 'duplicate' };
  }

  private findImpression(impressionRef: string, billable: boolean) {
    const id = parseId('impression', impressionRef);
    return id === null ? Promise.resolve(null) : this.deps.store.findImpression(id, billable);
  }

  private expired(createdAt: Date): boolean {
    return this.deps.clock.now().getTime() - createdAt.getTime() > ATTRIBUTION_WINDOW_MS;
  }

  private async insert(
    impression: { id: string; accountId: string; requestId: string; productId: string; createdAt: Date },
    how: Pick<NewClick, 'keyId' | 'source' | 'billable' | 'userAgentClass'>,
  ): Promise<{ click: StoredClick; inserted: boolean }> {
    const id = newId();
    const destination = await this.destination(impression.productId);
    const ids = {
      click_id: prefixedId('click', id),
      impression_id: prefixedId('impression', impression.id),
      product_id: prefixedId('product', impression.productId),
      request_id: prefixedId('request', impression.requestId),
    };
    const writing = performance.now();
    const recorded = await this.deps.store.recordClick({
      id,
      impressionId: impression.id,
      accountId: impression.accountId,
      requestId: impression.requestId,
      productId: impression.productId,
      ...how,
      destinationUrl: destination
        ? this.withAttribution(withAffiliateParams(this.deps.affiliate, destination.url, destination.merchant, ids), impression, destination.merchant)
        : null,
      clickedAt: this.deps.clock.now(),
    });
    this.deps.meter?.eventWritten('click', (performance.now() - writing) / 1000);
    return recorded;
  }

  /**
   * The merchant URL with the impression's attribution as a URL parameter (`aisle_attr`), the
   * same token the search answer carried, so a merchant can verify the sale came from it.
   */
  private withAttribution(url: string, impression: { id: string; createdAt: Date }, merchant: string | null): string {
    try {
      const target = new URL(url);
      target.searchParams.set('aisle_attr', this.deps.attribution.token(impression.id, merchant, impression.createdAt));
      return target.toString();
    } catch {
      return url;
    }
  }

  private async destination(productId: string): Promise<Destination> {
    const cached = this.destinations.get(productId);
    if (cached) return cached.value;
    const [product] = this.deps.catalog ? await this.deps.catalog.getByIds([productId]) : [];
    const value = product?.url ? { url: product.url, merchant: product.merchant } : null;
    this.destinations.set(productId, { value });
    return value;
  }
}

const notFound = (ref: string) => new AppError('not_found', `No impression ${ref} in this account.`);
const expiredError = () =>
  new AppError('impression_expired', 'The impression is older than the 30-day attribution window; clicks on it are no longer recorded.');
const gone = () => new AppError('not_found', 'The product behind this link is no longer in the catalog.');

function toClick(c: StoredClick, duplicate: boolean, livemode: boolean): Click {
  return {
    click_id: c.id,
    impression_id: c.impressionId,
    product_id: c.productId,
    request_id: c.requestId,
    destination_url: c.destinationUrl,
    clicked_at: c.clickedAt.toISOString(),
    duplicate,
    impression_displayed: c.impressionDisplayed,
    livemode,
  };
}
