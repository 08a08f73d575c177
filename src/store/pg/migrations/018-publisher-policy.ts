/**
 * Publisher policy (docs/policy.md): one row per account and one per key that overrides it; the
 * fields as the API takes them (JSON), so a new field needs no migration.
 */
export const sql = `
CREATE TABLE publisher_policies (
  account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id     uuid REFERENCES api_keys(id) ON DELETE CASCADE,
  fields     jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX publisher_policies_account ON publisher_policies (account_id) WHERE key_id IS NULL;
CREATE UNIQUE INDEX publisher_policies_key ON publisher_policies (key_id) WHERE key_id IS NOT NULL;
`;
