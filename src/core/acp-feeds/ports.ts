/** ACP product feeds in storage (src/store/pg/feed-store.ts). */
import type { AcpProduct } from '../schemas/feeds.js';

export interface StoredFeed {
  id: string;
  accountId: string;
  targetCountry: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface FeedStore {
  create(feed: StoredFeed): Promise<void>;
  /** The feed if it is the account's; null for an unknown id and for another account's alike. */
  find(accountId: string, feedId: string): Promise<StoredFeed | null>;
  /**
   * Stores each product as sent, replacing one with the same id (ACP upserts whole products), and
   * moves the feed's updated_at; one transaction. Returns the products stored before under those ids.
   */
  upsertProducts(feedId: string, products: readonly AcpProduct[], at: Date): Promise<AcpProduct[]>;
  /** Every product of the feed, in id order. */
  products(feedId: string): Promise<AcpProduct[]>;
  /** How many feeds the account has. */
  count(accountId: string): Promise<number>;
}
