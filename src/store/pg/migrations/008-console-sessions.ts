/**
 * Console sign-in sessions (docs/console.md). The browser holds only the session token in an
 * HttpOnly cookie; the row holds its SHA-256, never the token or the API key. A session belongs to
 * the key that opened it: deleting the key deletes its sessions, and every request re-reads the
 * key, so a disabled, revoked or expired key ends them too.
 */
export const sql = `
CREATE TABLE console_sessions (
  token_hash  text PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id      uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  csrf_token  text NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX console_sessions_expires ON console_sessions (expires_at);
CREATE INDEX console_sessions_key ON console_sessions (key_id);
`;
