/**
 * ACP product feeds (docs/commerce.md): a feed belongs to one account; its products are kept as
 * the merchant sent them (GET /v1/feeds/{id}/products answers them back), and their variants
 * are what the catalog indexes.
 */
export const sql = `
CREATE TABLE feeds (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  target_country text,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX feeds_account ON feeds (account_id);

CREATE TABLE feed_products (
  feed_id    uuid NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
  product_id text NOT NULL,
  body       jsonb NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (feed_id, product_id)
);
`;
