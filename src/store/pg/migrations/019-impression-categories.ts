/**
 * Analytics by category (docs/analytics.md, "Top categories"): each impression keeps the taxonomy
 * category its product had when it was shown, and a daily rollup per category serves long ranges.
 * The new column is nullable without a default, so adding it is metadata-only on PostgreSQL 11+:
 * instant on a large table, and impressions written before it stay NULL ("unplaced").
 */
export const sql = `
ALTER TABLE impressions ADD COLUMN category_id integer;

-- Per day, leaf category and conversion currency: impressions made that day, billable clicks made
-- that day on impressions of the category, conversions recorded that day on them. category_id 0
-- stands for unplaced (Google's ids start at 1; a key column cannot be NULL). currency is '' on the
-- row that carries impressions and clicks, a conversion's currency on the rows that carry revenue.
CREATE TABLE category_daily (
  account_id   uuid NOT NULL,
  day          timestamptz NOT NULL,
  category_id  integer NOT NULL,
  currency     text NOT NULL,
  impressions  integer NOT NULL,
  clicks       integer NOT NULL,
  conversions  integer NOT NULL,
  revenue      numeric(24, 4) NOT NULL,
  PRIMARY KEY (account_id, day, category_id, currency)
);

-- Its own high-water mark: accounts rolled up before this migration have days without category
-- rows, so the first read after it rolls their categories from the start of their raw rows.
ALTER TABLE analytics_rollup_state ADD COLUMN category_days_until timestamptz;
`;
