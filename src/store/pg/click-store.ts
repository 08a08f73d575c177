import type { ClickableImpression, ClickStore, NewClick, StoredClick, StoredConversion, StoredDisplay } from '../../core/clicks/ports.js';
import { eventData } from '../../core/webhooks/events.js';
import type { Db } from './db.js';
import { GroupCommit } from './group-commit.js';
import { appendEvent, appendEvents } from './outbox.js';

const CLICK_COLUMNS = 'id, impression_id, account_id, request_id, product_id, billable, destination_url, clicked_at, impression_displayed';
const CONVERSION_COLUMNS =
  'id, account_id, click_id, impression_id, product_id, key_id, order_id, sale_amount, commission_amount, currency, created_at, attributed_by, metadata';

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
  click_id: string | null;
  impression_id: string;
  product_id: string;
  key_id: string;
  order_id: string;
  sale_amount: string | number;
  commission_amount: string | number;
  currency: string;
  created_at: Date;
  attributed_by: 'click' | 'token';
  metadata: Record<string, string | number | boolean>;
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
  attributedBy: r.attributed_by,
  metadata: r.metadata,
});

type Recorded = { click: StoredClick; inserted: boolean };
type ImpressionRow = {
  item: number;
  id: string;
  account_id: string;
  request_id: string;
  product_id: string;
  key_id: string;
  created_at: Date;
  click: ClickRow | null;
};

export class PgClickStore implements ClickStore {
  // Clicks arrive many at a time and each must be committed before its answer. Grouped, the
  // clicks that arrive while earlier groups are at the database share one transaction (a few
  // statements and one commit), and the lookups before them one SELECT. Up to 4 transactions at
  // once keep the pool (10 by default) free for everything else.
  private readonly clickBatches = new GroupCommit<NewClick, Recorded>({ run: (clicks) => this.recordClicks(clicks), maxInFlight: 4 });
  private readonly lookups = new GroupCommit<{ impressionId: string; billable: boolean }, ClickableImpression | null>({
    run: (items) => this.findImpressions(items),
    maxInFlight: 2,
  });

  constructor(private readonly db: Db) {}

  findImpression(impressionId: string, billable: boolean): Promise<ClickableImpression | null> {
    return this.lookups.submit({ impressionId, billable });
  }

  /** The click is committed (with its outbox event) when the promise resolves. */
  recordClick(c: NewClick): Promise<Recorded> {
    return this.clickBatches.submit(c);
  }

  private async findImpressions(items: readonly { impressionId: string; billable: boolean }[]): Promise<(ClickableImpression | null)[]> {
    const rows = await this.db.query<ImpressionRow>(
      `SELECT q.item::int AS item, i.id, i.account_id, i.request_id, i.product_id, i.key_id, i.created_at,
              (SELECT row_to_json(c) FROM (SELECT ${CLICK_COLUMNS} FROM clicks WHERE impression_id = i.id AND billable = q.billable) c) AS click
       FROM unnest($1::uuid[], $2::boolean[]) WITH ORDINALITY AS q(id, billable, item)
       JOIN impressions i ON i.id = q.id`,
      [items.map((q) => q.impressionId), items.map((q) => q.billable)],
    );
    const found: (ClickableImpression | null)[] = items.map(() => null);
    for (const r of rows) {
      found[r.item - 1] = {
        id: r.id,
        accountId: r.account_id,
        requestId: r.request_id,
        productId: r.product_id,
        keyId: r.key_id,
        createdAt: new Date(r.created_at),
        existingClick: r.click ? toClick(r.click) : null,
      };
    }
    return found;
  }

  /**
   * One transaction for a group of clicks: one INSERT of them all, one outbox append for the
   * billable ones inserted, one SELECT of the rows that hold for the others.
   */
  private recordClicks(clicks: readonly NewClick[]): Promise<Recorded[]> {
    // Inserted in (impression, billable) order: concurrent groups then wait on each other's
    // unique-index entries in one order and cannot deadlock.
    const sorted = [...clicks].sort((a, b) =>
      a.impressionId < b.impressionId ? -1 : a.impressionId > b.impressionId ? 1 : Number(a.billable) - Number(b.billable),
    );
    return this.db.transaction(async (tx) => {
      // Of two clicks on the same (impression, billable), in this group or racing in another
      // transaction, one row is inserted and the other does nothing (after waiting for the
      // other transaction to end). The SELECT below is a new statement, so it sees that row.
      const inserted = await tx.query<ClickRow>(
        `INSERT INTO clicks (id, impression_id, account_id, request_id, product_id, key_id, source, billable, user_agent_class, destination_url, clicked_at, impression_displayed)
         SELECT c.id, c.impression_id, c.account_id, c.request_id, c.product_id, c.key_id, c.source, c.billable, c.user_agent_class, c.destination_url, c.clicked_at,
                (SELECT displayed_at IS NOT NULL FROM impressions WHERE id = c.impression_id)
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::boolean[], $9::text[], $10::text[], $11::timestamptz[])
              WITH ORDINALITY AS c(id, impression_id, account_id, request_id, product_id, key_id, source, billable, user_agent_class, destination_url, clicked_at, n)
         ORDER BY c.n
         ON CONFLICT ON CONSTRAINT clicks_one_per_impression DO NOTHING
         RETURNING ${CLICK_COLUMNS}`,
        [
          sorted.map((c) => c.id),
          sorted.map((c) => c.impressionId),
          sorted.map((c) => c.accountId),
          sorted.map((c) => c.requestId),
          sorted.map((c) => c.productId),
          sorted.map((c) => c.keyId),
          sorted.map((c) => c.source),
          sorted.map((c) => c.billable),
          sorted.map((c) => c.userAgentClass),
          sorted.map((c) => c.destinationUrl),
          sorted.map((c) => c.clickedAt.toISOString()),
        ],
      );
      // Keyed by the database's canonical (lower-case) uuid text, whatever case the caller used.
      const mine = new Map(inserted.map((r) => [r.id, r]));
      const key = (c: NewClick) => `${c.impressionId.toLowerCase()}/${c.billable}`;
      // Only a billable click is news to subscribers; the events commit with the clicks or not at all.
      await appendEvents(
        tx,
        clicks.flatMap((c) => {
          const row = mine.get(c.id.toLowerCase());
          if (!row || !c.billable) return [];
          return [
            {
              accountId: c.accountId,
              type: 'click' as const,
              createdAt: c.clickedAt,
              data: eventData.click({
                clickId: c.id,
                impressionId: c.impressionId,
                productId: c.productId,
                requestId: c.requestId,
                impressionDisplayed: row.impression_displayed,
              }),
            },
          ];
        }),
      );
      const others = clicks.filter((c) => !mine.has(c.id.toLowerCase()));
      const holding = new Map<string, ClickRow>();
      if (others.length > 0) {
        const rows = await tx.query<ClickRow>(
          `SELECT ${CLICK_COLUMNS} FROM clicks WHERE (impression_id, billable) IN (SELECT * FROM unnest($1::uuid[], $2::boolean[]))`,
          [others.map((c) => c.impressionId), others.map((c) => c.billable)],
        );
        for (const r of rows) holding.set(`${r.impression_id}/${r.billable}`, r);
      }
      return clicks.map((c) => {
        const own = mine.get(c.id.toLowerCase());
        if (own) return { click: toClick(own), inserted: true };
        const existing = holding.get(key(c));
        if (!existing) throw new Error('click conflict without a conflicting row');
        // A row with this click's own id is this click, written by an earlier attempt whose
        // commit was not confirmed (a group retried one by one after a lost connection).
        return { click: toClick(existing), inserted: existing.id === c.id.toLowerCase() };
      });
    });
  }

  async findClick(accountId: string, clickId: string): Promise<StoredClick | null> {
    const rows = await this.db.query<ClickRow>(`SELECT ${CLICK_COLUMNS} FROM clicks WHERE id = $1 AND account_id = $2`, [clickId, accountId]);
    return rows[0] ? toClick(rows[0]) : null;
  }

  async findConversionByOrder(accountId: string, orderId: string): Promise<StoredConversion | null> {
    const rows = await this.db.query<ConversionRow>(`SELECT ${CONVERSION_COLUMNS} FROM conversions WHERE account_id = $1 AND order_id = $2`, [
      accountId,
      orderId,
    ]);
    return rows[0] ? toConversion(rows[0]) : null;
  }

  recordConversion(v: StoredConversion): Promise<{ conversion: StoredConversion; inserted: boolean }> {
    return this.db.transaction(async (tx) => {
      const inserted = await tx.query<ConversionRow>(
        `INSERT INTO conversions (${CONVERSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT ON CONSTRAINT conversions_order_once DO NOTHING
         RETURNING ${CONVERSION_COLUMNS}`,
        [
          v.id,
          v.accountId,
          v.clickId,
          v.impressionId,
          v.productId,
          v.keyId,
          v.orderId,
          v.saleAmount,
          v.commissionAmount,
          v.currency,
          v.createdAt,
          v.attributedBy,
          JSON.stringify(v.metadata),
        ],
      );
      if (inserted[0]) {
        await appendEvent(tx, {
          accountId: v.accountId,
          type: 'conversion',
          createdAt: v.createdAt,
          data: eventData.conversion({
            conversionId: v.id,
            clickId: v.clickId,
            impressionId: v.impressionId,
            productId: v.productId,
            orderId: v.orderId,
            saleAmount: v.saleAmount,
            commissionAmount: v.commissionAmount,
            currency: v.currency,
          }),
        });
        return { conversion: toConversion(inserted[0]), inserted: true };
      }
      const existing = await tx.query<ConversionRow>(`SELECT ${CONVERSION_COLUMNS} FROM conversions WHERE account_id = $1 AND order_id = $2`, [
        v.accountId,
        v.orderId,
      ]);
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
      const rows = await tx.query<{ id: string; displayed_at: Date }>(
        'SELECT id, displayed_at FROM impressions WHERE account_id = $1 AND id = ANY($2::uuid[])',
        [accountId, ids],
      );
      const stamped = new Map(rows.map((r) => [r.id, new Date(r.displayed_at)]));
      return { displays: ids.map((id) => ({ impressionId: id, displayedAt: stamped.get(id) ?? at, first: first.has(id) })) };
    });
  }
}
