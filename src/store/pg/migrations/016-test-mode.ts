/**
 * Test mode (docs/commerce.md, "Test mode"): an account's test data lives in a test account of
 * its own, created with its first test key, so nothing it records can reach the live account's
 * figures. Keys know their mode, for their prefix and their records.
 */
export const sql = `
ALTER TABLE accounts ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE accounts ADD COLUMN live_account_id uuid REFERENCES accounts(id) ON DELETE CASCADE;
ALTER TABLE accounts ADD CONSTRAINT accounts_test_has_live CHECK (livemode = (live_account_id IS NULL));
CREATE UNIQUE INDEX accounts_test_of ON accounts (live_account_id) WHERE live_account_id IS NOT NULL;
ALTER TABLE api_keys ADD COLUMN livemode boolean NOT NULL DEFAULT true;
`;
