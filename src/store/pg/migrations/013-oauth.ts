/**
 * Aisle as an OAuth authorization server (docs/oauth.md): dynamically registered clients, codes,
 * grants and their tokens. Codes and tokens are stored as SHA-256 hashes only. A grant belongs to
 * the key that approved it: deleting the key deletes its grants and their tokens; disabling or
 * revoking it revokes them (src/store/pg/key-store.ts).
 *
 * oauth_codes repeats oauth_grants' columns (key, client, redirect URI, scopes, resource) on
 * purpose: a code holds the approval before any grant exists, and its exchange copies them into
 * the grant. Applied migrations are history: this text never changes, a later migration does.
 */
export const sql = `
-- Clients that registered themselves (RFC 7591). Clients known by a metadata document URL are
-- fetched, never stored. A registration never authorized is pruned after a day.
CREATE TABLE oauth_clients (
  client_id      text PRIMARY KEY,
  client_name    text,
  redirect_uris  text[] NOT NULL,
  created_at     timestamptz NOT NULL,
  authorized_at  timestamptz
);
CREATE INDEX oauth_clients_unused ON oauth_clients (created_at) WHERE authorized_at IS NULL;

CREATE TABLE oauth_grants (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id        uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  client_id     text NOT NULL,
  client_name   text,
  redirect_uri  text NOT NULL,
  scopes        text[] NOT NULL,
  resource      text NOT NULL,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz,
  -- When its newest refresh token expires.
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz
);
CREATE INDEX oauth_grants_account_page ON oauth_grants (account_id, created_at DESC, id DESC) WHERE revoked_at IS NULL;
CREATE INDEX oauth_grants_key ON oauth_grants (key_id) WHERE revoked_at IS NULL;
CREATE INDEX oauth_grants_ended ON oauth_grants ((COALESCE(revoked_at, expires_at)));

CREATE TABLE oauth_codes (
  code_hash       text PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id          uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  client_id       text NOT NULL,
  client_name     text,
  redirect_uri    text NOT NULL,
  code_challenge  text NOT NULL,
  scopes          text[] NOT NULL,
  resource        text NOT NULL,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz,
  -- The grant the code's exchange created: revoked if the code is presented again.
  grant_id        uuid REFERENCES oauth_grants(id) ON DELETE SET NULL
);
CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);

CREATE TABLE oauth_tokens (
  token_hash  text PRIMARY KEY,
  grant_id    uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('access', 'refresh')),
  scopes      text[] NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  -- A refresh token's rotation: when it was exchanged for the next pair.
  used_at     timestamptz
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);
`;
