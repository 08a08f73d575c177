/** Clicks, conversions and display receipts in storage (src/store/pg/click-store.ts). */

/** An impression as clicks see it, with the click of the asked-for kind it already has. */
export interface ClickableImpression {
  id: string;
  accountId: string;
  requestId: string;
  productId: string;
  /** The key whose search showed it (an attribution's campaign). */
  keyId: string;
  createdAt: Date;
  existingClick: StoredClick | null;
}

export interface StoredClick {
  id: string;
  impressionId: string;
  accountId: string;
  requestId: string;
  productId: string;
  billable: boolean;
  destinationUrl: string | null;
  clickedAt: Date;
  /** Whether the impression had a display receipt when the click was recorded (set by the store). */
  impressionDisplayed: boolean;
}

export interface NewClick extends Omit<StoredClick, 'impressionDisplayed'> {
  keyId: string | null;
  source: 'api' | 'link';
  userAgentClass: 'api' | 'browser' | 'bot';
}

export interface StoredConversion {
  id: string;
  accountId: string;
  /** Null for a conversion attributed by an attribution token (docs/commerce.md). */
  clickId: string | null;
  impressionId: string;
  productId: string;
  keyId: string;
  orderId: string;
  saleAmount: number;
  commissionAmount: number;
  currency: string;
  createdAt: Date;
  attributedBy: 'click' | 'token';
  /** Flat key-value details the merchant sent (no personal data). */
  metadata: Record<string, string | number | boolean>;
}

export interface ClickStore {
  /** The impression (any account) and its existing click with this `billable` value, or null. */
  findImpression(impressionId: string, billable: boolean): Promise<ClickableImpression | null>;
  /**
   * Inserts the click unless its impression already has one with the same `billable` value (a
   * unique constraint decides, so concurrent calls agree); returns the row that holds.
   */
  recordClick(click: NewClick): Promise<{ click: StoredClick; inserted: boolean }>;
  findClick(accountId: string, clickId: string): Promise<StoredClick | null>;
  findConversionByOrder(accountId: string, orderId: string): Promise<StoredConversion | null>;
  /** Inserts unless the account already has this order_id; returns the row that holds. */
  recordConversion(conversion: StoredConversion): Promise<{ conversion: StoredConversion; inserted: boolean }>;
  /**
   * Display receipts: sets `displayed_at = at` on those of `impressionIds` (bare UUIDs) of the
   * account that have none yet, unless one of them is not the account's (then nothing changes and
   * the missing ids come back). Answers each impression's `displayed_at` and whether this call set it.
   */
  recordDisplays(accountId: string, impressionIds: readonly string[], at: Date): Promise<{ missing: string[] } | { displays: StoredDisplay[] }>;
}

export interface StoredDisplay {
  impressionId: string;
  displayedAt: Date;
  /** True when this receipt set `displayed_at`; false when an earlier one had. */
  first: boolean;
}
