/** Searches, the impressions they showed, and conversation sessions (docs/search.md, docs/clicks.md). */
export const sql = `
CREATE TABLE search_requests (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id         uuid NOT NULL,
  session_id     uuid NOT NULL,
  query          text NOT NULL,
  normalized_query text NOT NULL,
  filters        jsonb NOT NULL DEFAULT '{}',
  result_count   integer NOT NULL,
  total_matches  integer NOT NULL,
  took_ms        double precision NOT NULL,
  created_at     timestamptz NOT NULL
);
CREATE INDEX search_requests_account_time ON search_requests (account_id, created_at);

-- One row per returned result, written before the response is sent. key_id has no foreign key:
-- deleting a key must not erase the history it produced.
CREATE TABLE impressions (
  id          uuid PRIMARY KEY,
  request_id  uuid NOT NULL REFERENCES search_requests(id) ON DELETE CASCADE,
  account_id  uuid NOT NULL,
  key_id      uuid NOT NULL,
  session_id  uuid NOT NULL,
  product_id  uuid NOT NULL,
  position    integer NOT NULL CHECK (position >= 1),
  created_at  timestamptz NOT NULL
);
CREATE INDEX impressions_account_time ON impressions (account_id, created_at);
CREATE INDEX impressions_request ON impressions (request_id);

-- Conversation state per account and session: recent queries, shown and clicked products.
CREATE TABLE search_sessions (
  account_id    uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  id            uuid NOT NULL,
  state         jsonb NOT NULL,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz NOT NULL,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX search_sessions_last_used ON search_sessions (last_used_at);
`;
