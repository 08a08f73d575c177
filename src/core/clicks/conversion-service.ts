import type { CatalogStore } from '../catalog/ports.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, parseId, prefixedId } from '../ids.js';
import type { Meter } from '../metering.js';
import { detectPii } from '../pii/pii.js';
import type { AttributionVerification, Conversion, ConversionRequest } from '../schemas/clicks.js';
import type { Principal } from '../shared-ports.js';
import { type AttributionTokens, merchantDigest } from './attribution.js';
import { ATTRIBUTION_WINDOW_MS } from './click-service.js';
import type { ClickableImpression, ClickStore, StoredClick, StoredConversion } from './ports.js';

export interface ConversionServiceDeps {
  store: ClickStore;
  clock: Clock;
  attribution: Pick<AttributionTokens, 'read'>;
  /** The merchant of a clicked product, for keys limited to one merchant. */
  catalog?: CatalogStore;
  /** Told how long each conversion and its event took to write (docs/operations.md). */
  meter?: Pick<Meter, 'eventWritten'>;
}

/**
 * POST /conversions (docs/clicks.md) and POST /attribution/verify (docs/commerce.md). One
 * conversion per (account, order_id): a repeat answers 200 with the stored conversion whatever it
 * carries, so a network retrying its postback never double-counts (and a replay stays 200 after
 * the window); the first claim on an order is the one kept. A conversion names its sale's origin
 * by click, impression or attribution token. 404 not_found for a click, impression or token that
 * is not this account's; 422 impression_not_clicked for an impression without a billable click;
 * 422 conversion_window_closed more than 30 days after the click or the token's issue; 422
 * attribution_token_invalid for an altered token; 403 merchant_not_allowed when the key is limited
 * to another merchant; 400 pii_not_allowed for personal data in metadata.
 */
export class ConversionService {
  constructor(private readonly deps: ConversionServiceDeps) {}

  async record(principal: Principal, body: ConversionRequest): Promise<{ created: boolean; conversion: Conversion }> {
    const metadata = body.metadata ?? {};
    refusePersonalData(metadata);
    const stored = await this.deps.store.findConversionByOrder(principal.accountId, body.order_id);
    if (stored) {
      // A merchant-limited key learns nothing of another merchant's sale by guessing its order id.
      await this.checkMerchant(principal, stored.productId);
      return { created: false, conversion: toConversion(stored, principal) };
    }
    const now = this.deps.clock.now();
    const origin =
      body.attribution_token !== undefined ? await this.fromToken(principal, body.attribution_token, now) : await this.fromClick(principal, body, now);
    const writing = performance.now();
    const { conversion, inserted } = await this.deps.store.recordConversion({
      id: newId(),
      accountId: principal.accountId,
      ...origin,
      keyId: principal.keyId,
      orderId: body.order_id,
      saleAmount: body.sale_amount,
      commissionAmount: body.commission_amount,
      currency: body.currency,
      createdAt: now,
      metadata,
    });
    this.deps.meter?.eventWritten('conversion', (performance.now() - writing) / 1000);
    return { created: inserted, conversion: toConversion(conversion, principal) };
  }

  /**
   * What a merchant learns from a token, always answered (200): `valid` with the impression,
   * search, product, publisher account and campaign (the key whose search showed the product),
   * or why not. A token of another account is `unknown`, as if it did not exist.
   */
  async verify(principal: Principal, token: string): Promise<AttributionVerification> {
    const reading = this.deps.attribution.read(token);
    if (reading.status !== 'signed') return { valid: false, status: reading.status };
    const impression = await this.deps.store.findImpression(reading.impressionId, true);
    if (impression === null || impression.accountId !== principal.accountId) return { valid: false, status: 'unknown' };
    const times = { issued_at: reading.issuedAt.toISOString(), expires_at: reading.expiresAt.toISOString() };
    if (principal.merchant && !merchantDigest(principal.merchant).equals(reading.merchantDigest)) return { valid: false, status: 'other_merchant' };
    if (this.deps.clock.now().getTime() > reading.expiresAt.getTime()) return { valid: false, status: 'expired', ...times };
    return {
      valid: true,
      status: 'valid',
      impression_id: impression.id,
      request_id: impression.requestId,
      product_id: impression.productId,
      account_id: prefixedId('account', impression.accountId),
      campaign_id: prefixedId('key', impression.keyId),
      ...times,
    };
  }

  private async fromToken(principal: Principal, token: string, now: Date): Promise<Origin> {
    const v = await this.verify(principal, token);
    switch (v.status) {
      case 'valid':
        return { clickId: null, impressionId: v.impression_id!, productId: v.product_id!, attributedBy: 'token' };
      case 'unknown':
        throw new AppError('not_found', 'No impression of this account carries this attribution token.');
      case 'tampered':
        throw new AppError('attribution_token_invalid', 'The attribution token has been altered; send it exactly as the agent received it.', {
          errors: [{ path: 'attribution_token', message: 'altered' }],
        });
      case 'other_merchant':
        throw merchantRefused(principal);
      case 'expired':
        throw new AppError(
          'conversion_window_closed',
          `The attribution token was issued on ${v.issued_at} and expired on ${v.expires_at}; conversions are attributed within 30 days.`,
          { extensions: { expires_at: v.expires_at, now: now.toISOString() } },
        );
    }
  }

  private async fromClick(principal: Principal, body: ConversionRequest, now: Date): Promise<Origin> {
    const click = await this.findClick(principal, body);
    await this.checkMerchant(principal, click.productId);
    if (now.getTime() - click.clickedAt.getTime() > ATTRIBUTION_WINDOW_MS) {
      throw new AppError(
        'conversion_window_closed',
        `The click ${click.id} was made on ${click.clickedAt.toISOString()}, more than 30 days ago; conversions are attributed within 30 days of their click.`,
        {
          extensions: { clicked_at: click.clickedAt.toISOString() },
        },
      );
    }
    return { clickId: click.id, impressionId: click.impressionId, productId: click.productId, attributedBy: 'click' };
  }

  /** A key limited to one merchant converts that merchant's clicks only (a product gone from the catalog has no merchant to match). */
  private async checkMerchant(principal: Principal, productId: string): Promise<void> {
    if (!principal.merchant) return;
    const [product] = this.deps.catalog ? await this.deps.catalog.getByIds([productId]) : [];
    if (!product || !merchantDigest(product.merchant).equals(merchantDigest(principal.merchant))) throw merchantRefused(principal);
  }

  private async findClick(principal: Principal, body: ConversionRequest): Promise<StoredClick> {
    if (body.click_id !== undefined) {
      const id = parseId('click', body.click_id);
      const click = id === null ? null : await this.deps.store.findClick(principal.accountId, id);
      if (click === null) throw new AppError('not_found', `No click ${body.click_id} in this account.`);
      return click;
    }
    const id = parseId('impression', body.impression_id ?? '');
    const impression: ClickableImpression | null = id === null ? null : await this.deps.store.findImpression(id, true);
    if (impression === null || impression.accountId !== principal.accountId) {
      throw new AppError('not_found', `No impression ${body.impression_id} in this account.`);
    }
    if (impression.existingClick === null) {
      throw new AppError(
        'impression_not_clicked',
        `The impression ${body.impression_id} has no click; report the click first (POST /v1/clicks/{impression_id}) or send its click_id.`,
      );
    }
    return impression.existingClick;
  }
}

type Origin = Pick<StoredConversion, 'clickId' | 'impressionId' | 'productId' | 'attributedBy'>;

const merchantRefused = (principal: Principal) =>
  new AppError('merchant_not_allowed', `This key is limited to the merchant "${principal.merchant}"; the sale is attributed to another merchant's product.`);

/** Personal data in a metadata key or value: 400 pii_not_allowed naming the key, and nothing written. */
function refusePersonalData(metadata: Record<string, string | number | boolean>): void {
  const errors = Object.entries(metadata)
    .filter(([key, value]) => detectPii(key).length > 0 || detectPii(String(value)).length > 0)
    .map(([key]) => ({
      path: `metadata.${key}`,
      message: `holds personal data (${[...new Set(detectPii(`${key} ${String(metadata[key])}`).map((m) => m.type))].join(', ')})`,
    }));
  if (errors.length > 0) {
    throw new AppError('pii_not_allowed', `Conversion metadata must not hold personal data: ${errors.map((e) => e.path).join(', ')}.`, { errors });
  }
}

function toConversion(c: StoredConversion, principal: Principal): Conversion {
  return {
    conversion_id: c.id,
    click_id: c.clickId,
    attributed_by: c.attributedBy,
    impression_id: c.impressionId,
    product_id: c.productId,
    order_id: c.orderId,
    sale_amount: c.saleAmount,
    commission_amount: c.commissionAmount,
    currency: c.currency,
    metadata: c.metadata,
    created_at: c.createdAt.toISOString(),
    livemode: principal.livemode !== false,
  };
}
