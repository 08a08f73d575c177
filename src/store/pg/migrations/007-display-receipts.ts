/**
 * Display receipts (docs/mcp.md, MCP Apps): when a person had a result's card, with its
 * disclosure, on screen. Every statement here is metadata-only on PostgreSQL 11+ (a nullable
 * column, constant defaults), so it is instant on large tables.
 */
export const sql = `
-- First receipt wins: set once, never moved.
ALTER TABLE impressions ADD COLUMN displayed_at timestamptz;
-- Displayed impressions per account and time for analytics; only displayed rows are in it.
CREATE INDEX impressions_displayed ON impressions (account_id, displayed_at) WHERE displayed_at IS NOT NULL;

-- Whether the clicked impression had been displayed when the click was recorded (a fact of the click).
ALTER TABLE clicks ADD COLUMN impression_displayed boolean NOT NULL DEFAULT false;

-- Receipts per hour by displayed_at, like clicks by clicked_at: hours rolled up before this
-- migration had no receipts, so 0 is their true value.
ALTER TABLE activity_hourly ADD COLUMN displayed integer NOT NULL DEFAULT 0;
`;
