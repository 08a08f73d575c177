/** Clicks, conversions, relevance feedback (docs/clicks.md) and server-generated secrets. */
export const sql = `
-- A click on an impression. UNIQUE (impression_id, billable) is what makes a click count once:
-- at most one billable row per impression, whatever races in front of it, and at most one
-- non-billable row (bots and link previews hitting a signed link) so crawlers cannot grow the table.
CREATE TABLE clicks (
  id               uuid PRIMARY KEY,
  impression_id    uuid NOT NULL REFERENCES impressions(id) ON DELETE CASCADE,
  account_id       uuid NOT NULL,
  request_id       uuid NOT NULL,
  product_id       uuid NOT NULL,
  key_id           uuid,
  source           text NOT NULL CHECK (source IN ('api', 'link')),
  billable         boolean NOT NULL,
  user_agent_class text NOT NULL CHECK (user_agent_class IN ('api', 'browser', 'bot')),
  destination_url  text,
  clicked_at       timestamptz NOT NULL,
  CONSTRAINT clicks_one_per_impression UNIQUE (impression_id, billable)
);
CREATE INDEX clicks_account_time ON clicks (account_id, clicked_at);
-- A session's clicked products are read at every search in that session (clicks join impressions).
CREATE INDEX impressions_session ON impressions (account_id, session_id);

CREATE TABLE conversions (
  id                uuid PRIMARY KEY,
  account_id        uuid NOT NULL,
  click_id          uuid NOT NULL REFERENCES clicks(id) ON DELETE CASCADE,
  impression_id     uuid NOT NULL,
  product_id        uuid NOT NULL,
  key_id            uuid NOT NULL,
  order_id          text NOT NULL,
  sale_amount       numeric(18, 4) NOT NULL CHECK (sale_amount >= 0),
  commission_amount numeric(18, 4) NOT NULL CHECK (commission_amount >= 0),
  currency          char(3) NOT NULL,
  created_at        timestamptz NOT NULL,
  CONSTRAINT conversions_order_once UNIQUE (account_id, order_id)
);
CREATE INDEX conversions_account_time ON conversions (account_id, created_at);

-- reason is stored after the account's PII policy ran; query_vector is the embedding of the
-- search's (redacted) query under model, so near-identical later queries find the vote.
CREATE TABLE feedback (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL,
  key_id        uuid NOT NULL,
  request_id    uuid NOT NULL REFERENCES search_requests(id) ON DELETE CASCADE,
  product_id    uuid NOT NULL,
  relevant      boolean NOT NULL,
  reason        text,
  user_clicked  boolean,
  query         text NOT NULL,
  model         text,
  query_vector  bytea,
  created_at    timestamptz NOT NULL
);
CREATE INDEX feedback_account_time ON feedback (account_id, created_at);

-- Secrets the server generates for itself when the operator set none (the click-link HMAC key),
-- kept in the database so every process sharing it signs and verifies alike.
CREATE TABLE server_secrets (
  name        text PRIMARY KEY,
  secret      text NOT NULL,
  created_at  timestamptz NOT NULL
);
`;
