import type { FeedStore, StoredFeed } from '../../core/acp-feeds/ports.js';
import type { AcpProduct } from '../../core/schemas/feeds.js';
import type { Db } from './db.js';

interface FeedRow {
  id: string;
  account_id: string;
  target_country: string | null;
  created_at: Date;
  updated_at: Date;
}

const toFeed = (r: FeedRow): StoredFeed => ({
  id: r.id,
  accountId: r.account_id,
  targetCountry: r.target_country,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

// jsonb comes back parsed from pg and from PGlite alike.
const toProduct = (r: { body: AcpProduct }): AcpProduct => r.body;

export class PgFeedStore implements FeedStore {
  constructor(private readonly db: Db) {}

  async create(f: StoredFeed): Promise<void> {
    await this.db.query('INSERT INTO feeds (id, account_id, target_country, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)', [
      f.id,
      f.accountId,
      f.targetCountry,
      f.createdAt,
      f.updatedAt,
    ]);
  }

  async find(accountId: string, feedId: string): Promise<StoredFeed | null> {
    const rows = await this.db.query<FeedRow>('SELECT id, account_id, target_country, created_at, updated_at FROM feeds WHERE id = $1 AND account_id = $2', [
      feedId,
      accountId,
    ]);
    return rows[0] ? toFeed(rows[0]) : null;
  }

  upsertProducts(feedId: string, products: readonly AcpProduct[], at: Date): Promise<AcpProduct[]> {
    return this.db.transaction(async (tx) => {
      // The feed row is locked first, so two upserts of one feed apply one after the other.
      await tx.query('SELECT 1 FROM feeds WHERE id = $1 FOR UPDATE', [feedId]);
      const ids = products.map((p) => p.id);
      const before = await tx.query<{ body: AcpProduct }>('SELECT body FROM feed_products WHERE feed_id = $1 AND product_id = ANY($2::text[])', [feedId, ids]);
      await tx.query(
        `INSERT INTO feed_products (feed_id, product_id, body, updated_at)
         SELECT $1, p.id, p.body, $4 FROM unnest($2::text[], $3::jsonb[]) AS p(id, body)
         ON CONFLICT (feed_id, product_id) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`,
        [feedId, ids, products.map((p) => JSON.stringify(p)), at],
      );
      await tx.query('UPDATE feeds SET updated_at = $2 WHERE id = $1', [feedId, at]);
      return before.map(toProduct);
    });
  }

  async products(feedId: string): Promise<AcpProduct[]> {
    const rows = await this.db.query<{ body: AcpProduct }>('SELECT body FROM feed_products WHERE feed_id = $1 ORDER BY product_id', [feedId]);
    return rows.map(toProduct);
  }

  async count(accountId: string): Promise<number> {
    const rows = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feeds WHERE account_id = $1', [accountId]);
    return rows[0]?.n ?? 0;
  }
}
