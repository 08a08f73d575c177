/**
 * Indexes for retention (docs/webhooks.md, "History and retention"): finished deliveries by age,
 * and events by age. Sessions already have theirs (search_sessions_last_used, 002).
 */
export const sql = `
-- Only finished deliveries are ever pruned, so only they are indexed: a row enters once, when its
-- last attempt moves it to succeeded or failed.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at) WHERE status IN ('succeeded', 'failed');
-- Events go once no delivery of theirs remains; deletes leave holes that later inserts fill, so
-- the rows are not in time order on disk and a BRIN index would not do.
CREATE INDEX webhook_events_created ON webhook_events (created_at);
`;
