/** Accounts, API keys (hash only) and the shared GCRA rate-limit state. */
export const sql = `
CREATE TABLE accounts (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  pii_policy  text NOT NULL DEFAULT 'redact' CHECK (pii_policy IN ('redact', 'reject')),
  created_at  timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id                    uuid PRIMARY KEY,
  account_id            uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name                  text NOT NULL,
  secret_hash           text NOT NULL,
  hint                  text NOT NULL,
  scopes                text[] NOT NULL,
  status                text NOT NULL CHECK (status IN ('active', 'disabled', 'revoked', 'expired')),
  created_at            timestamptz NOT NULL,
  last_used_at          timestamptz,
  expires_at            timestamptz,
  revoke_at             timestamptz,
  rotated_from          uuid,
  rate_limit_per_minute integer NOT NULL CHECK (rate_limit_per_minute > 0)
);
CREATE UNIQUE INDEX api_keys_secret_hash ON api_keys (secret_hash);
CREATE INDEX api_keys_account_page ON api_keys (account_id, created_at DESC, id DESC);

-- GCRA: one theoretical arrival time (ms since epoch) per bucket, shared by every process.
CREATE TABLE rate_limits (
  bucket  text PRIMARY KEY,
  tat_ms  double precision NOT NULL
);
`;
