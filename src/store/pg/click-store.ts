import type { ClickableImpression, ClickStore, NewClick, StoredClick, StoredConversion, StoredDisplay } from '../../core/ports.js';
import { eventData } from '../../core/webhooks/events.js';
import type { Db } from './db.js';
import { appendEvent } from './outbox.js';

const CLICK_COLUMNS = 'id, impression_id, account_id, request_id, product_id, billable, destination_url, clicked_at, impression_displayed';
const CONVERSION_COLUMNS =
  'id, account_id, click_id, impression_id, product_id, key_id, order_id, sale_amount, commission_amount, currency, created_at';

interface ClickRow {
  id: string;
  impression_id: string;
  account_id: string;
  request_id: string;
  product_id: string;
  billable: boolean;
  destination_url: string | null;
  clicked_at: Date;
  impression_displayed: boolean;
}

interface ConversionRow {
  id: string;
  account_id: string;
  click_id: string;
  impression_id: string;
  product_id: string;
  key_id: string;
  order_id: string;
  sale_amount: string | number;
  commission_amount: string | number;
  currency: string;
  created_at: Date;
}

const toClick = (r: ClickRow): StoredClick => ({
  id: r.id,
  impressionId: r.impression_id,
  accountId: r.account_id,
  requestId: r.request_id,
  productId: r.product_id,
  billable: r.billable,
  destinationUrl: r.destination_url,
  clickedAt: new Date(r.clicked_at),
  impressionDisplayed: r.impression_displayed,
});

// numeric comes back as a string (exact); amounts are bounded well inside double precision.
const toConversion = (r: ConversionRow): StoredConversion => ({
  id: r.id,
  accountId: r.account_id,
  clickId: r.click_id,
  impressionId: r.impression_id,
  productId: r.product_id,
  keyId: r.key_id,
  orderId: r.order_id,
  saleAmount: Number(r.sale_amount),
  commissionAmount: Number(r.commission_amount),
  currency: r.currency,
  createdAt: new Date(r.created_at),
});

export class PgClickStore implements ClickStore {
  constructor(private readonly db: Db) {}

  async findImpression(impressionId: string, billable: boolean): Promise<ClickableImpression | null> {
    const rows = await this.db.query<{ id: string; account_id: string; request_id: string; product_id: string; created_at: Date; click: ClickRow | null }>(
      `SELECT i.id, i.account_id, i.request_id, i.product_id, i.created_at,
              (SELECT row_to_json(c) FROM (SELECT ${CLICK_COLUMNS} FROM clicks WHERE impression_id = i.id AND billable = $2) c) AS click
       FROM impressions i WHERE i.id = $1`,
      [impressionId, billable],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      accountId: r.account_id,
      requestId: r.request_id,
      productId: r.product_id,
      createdAt: new Date(r.created_at),
      existingClick: r.click ? toClick(r.click) : null,
    };
  }

  recordClick(c: NewClick): Promise<{ click: StoredClick; inserted: boolean }> {
    return this.db.transaction(async (tx) => {
      // A concurrent insert of the same (impression, billable) makes this one wait for it and then
      // do nothing; the SELECT below is a new statement, so it sees the winner's committed row.
      const inserted = await tx.query<ClickRow>(
        `INSERT INTO clicks (id, impression_id, account_id, request_id, product_id, key_id, source, billable, user_agent_class, destination_url, clicked_at, impression_displayed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, (SELECT displayed_at IS NOT NULL FROM impressions WHERE id = $2))
         ON CONFLICT ON CONSTRAINT clicks_one_per_impression DO NOTHING
         RETURNING ${CLICK_COLUMNS}`,
        [c.id, c.impressionId, c.accountId, c.requestId, c.productId, c.keyId, c.source, c.billable, c.userAgentClass, c.destinationUrl, c.clickedAt],
      );
      if (inserted[0]) {
        // Only a billable click is news to subscribers; the event commits with the click or not at all.
        if (c.billable) {
          await appendEvent(tx, { accountId: c.accountId, type: 'click', createdAt: c.clickedAt, data: eventData.click({ clickId: c.id, impressionId: c.impressionId, productId: c.productId, requestId: c.requestId, impressionDisplayed: inserted[0].impression_displayed }) });
        }
        return { click: toClick(inserted[0]), inserted: true };
      }
      const existing = await tx.query<ClickRow>(`SELECT ${CLICK_COLUMNS} FROM clicks WHERE impression_id = $1 AND billable = $2`, [c.impressionId, c.billable]);
      if (!existing[0]) throw new Error('click conflict without a conflicting row');
      return { click: toClick(existing[0]), inserted: false };
    });
  }

  async findClick(accountId: string, clickId: string): Promise<StoredClick | null> {
    const rows = await this.db.query<ClickRow>(`SELECT ${CLICK_COLUMNS} FROM clicks WHERE id = $1 AND account_id = $2`, [clickId, accountId]);
    return rows[0] ? toClick(rows[0]) : null;
  }

  async findConversionByOrder(accountId: string, orderId: string): Promise<StoredConversion | null> {
    const rows = await this.db.query<ConversionRow>(`SELECT ${CONVERSION_COLUMNS} FROM conversions WHERE account_id = $1 AND order_id = $2`, [accountId, orderId]);
    return rows[0] ? toConversion(rows[0]) : null;
  }

  recordConversion(v: StoredConversion): Promise<{ conversion: StoredConversion; inserted: boolean }> {
    return this.db.transaction(async (tx) => {
      const inserted = await tx.query<ConversionRow>(
        `INSERT INTO conversions (${CONVERSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT ON CONSTRAINT conversions_order_once DO NOTHING
         RETURNING ${CONVERSION_COLUMNS}`,
        [v.id, v.accountId, v.clickId, v.impressionId, v.productId, v.keyId, v.orderId, v.saleAmount, v.commissionAmount, v.currency, v.createdAt],
      );
      if (inserted[0]) {
        await appendEvent(tx, {
          accountId: v.accountId,
          type: 'conversion',
          createdAt: v.createdAt,
          data: eventData.conversion({ conversionId: v.id, clickId: v.clickId, impressionId: v.impressionId, productId: v.productId, orderId: v.orderId, saleAmount: v.saleAmount, commissionAmount: v.commissionAmount, currency: v.currency }),
        });
        return { conversion: toConversion(inserted[0]), inserted: true };
      }
      const existing = await tx.query<ConversionRow>(`SELECT ${CONVERSION_COLUMNS} FROM conversions WHERE account_id = $1 AND order_id = $2`, [v.accountId, v.orderId]);
      if (!existing[0]) throw new Error('conversion conflict without a conflicting row');
      return { conversion: toConversion(existing[0]), inserted: false };
    });
  }

  recordDisplays(accountId: string, impressionIds: readonly string[], at: Date): Promise<{ missing: string[] } | { displays: StoredDisplay[] }> {
    const ids = [...impressionIds];
    return this.db.transaction(async (tx) => {
      const own = await tx.query<{ id: string }>('SELECT id FROM impressions WHERE account_id = $1 AND id = ANY($2::uuid[])', [accountId, ids]);
      const found = new Set(own.map((r) => r.id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) return { missing };
      // `displayed_at IS NULL` is re-checked after a concurrent receipt's row lock: only one sets it.
      const set = await tx.query<{ id: string }>(
        'UPDATE impressions SET displayed_at = $3 WHERE account_id = $1 AND id = ANY($2::uuid[]) AND displayed_at IS NULL RETURNING id',
        [accountId, ids, at],
      );
      const first = new Set(set.map((r) => r.id));
      // A new statement: it sees a concurrent winner's committed displayed_at.
      const rows = await tx.query<{ id: string; displayed_at: Date }>('SELECT id, displayed_at FROM impressions WHERE account_id = $1 AND id = ANY($2::uuid[])', [accountId, ids]);
      const stamped = new Map(rows.map((r) => [r.id, new Date(r.displayed_at)]));
      return { displays: ids.map((id) => ({ impressionId: id, displayedAt: stamped.get(id) ?? at, first: first.has(id) })) };
    });
  }
}
