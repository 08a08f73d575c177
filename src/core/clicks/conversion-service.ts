import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, parseId } from '../ids.js';
import type { ClickStore, StoredClick, StoredConversion } from './ports.js';
import type { Principal } from '../shared-ports.js';
import type { Conversion, ConversionRequest } from '../schemas/clicks.js';
import { ATTRIBUTION_WINDOW_MS } from './click-service.js';

/**
 * POST /conversions (docs/clicks.md), for affiliate-network postbacks. One conversion per
 * (account, order_id): a repeat answers 200 with the stored conversion whatever it carries, so a
 * network retrying its postback never double-counts (and a replay stays 200 after the window).
 * 404 not_found for a click or impression that is not this account's; 422 impression_not_clicked
 * for an impression without a billable click; 422 conversion_window_closed more than 30 days
 * after the click.
 */
export class ConversionService {
  constructor(private readonly deps: { store: ClickStore; clock: Clock }) {}

  async record(principal: Principal, body: ConversionRequest): Promise<{ created: boolean; conversion: Conversion }> {
    const stored = await this.deps.store.findConversionByOrder(principal.accountId, body.order_id);
    if (stored) return { created: false, conversion: toConversion(stored) };
    const click = await this.findClick(principal, body);
    const now = this.deps.clock.now();
    if (now.getTime() - click.clickedAt.getTime() > ATTRIBUTION_WINDOW_MS) {
      throw new AppError(
        'conversion_window_closed',
        `The click ${click.id} was made on ${click.clickedAt.toISOString()}, more than 30 days ago; conversions are attributed within 30 days of their click.`,
        {
          extensions: { clicked_at: click.clickedAt.toISOString() },
        },
      );
    }
    const { conversion, inserted } = await this.deps.store.recordConversion({
      id: newId(),
      accountId: principal.accountId,
      clickId: click.id,
      impressionId: click.impressionId,
      productId: click.productId,
      keyId: principal.keyId,
      orderId: body.order_id,
      saleAmount: body.sale_amount,
      commissionAmount: body.commission_amount,
      currency: body.currency,
      createdAt: now,
    });
    return { created: inserted, conversion: toConversion(conversion) };
  }

  private async findClick(principal: Principal, body: ConversionRequest): Promise<StoredClick> {
    if (body.click_id !== undefined) {
      const id = parseId('click', body.click_id);
      const click = id === null ? null : await this.deps.store.findClick(principal.accountId, id);
      if (click === null) throw new AppError('not_found', `No click ${body.click_id} in this account.`);
      return click;
    }
    const id = parseId('impression', body.impression_id ?? '');
    const impression = id === null ? null : await this.deps.store.findImpression(id, true);
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

function toConversion(c: StoredConversion): Conversion {
  return {
    conversion_id: c.id,
    click_id: c.clickId,
    impression_id: c.impressionId,
    product_id: c.productId,
    order_id: c.orderId,
    sale_amount: c.saleAmount,
    commission_amount: c.commissionAmount,
    currency: c.currency,
    created_at: c.createdAt.toISOString(),
  };
}
