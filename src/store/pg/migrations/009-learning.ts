/**
 * Per-query learning (src/core/learning) reads one query's recent searches with what happened to
 * their results, on every search: by normalised query, and from an impression to its click and
 * that click's conversion.
 */
export const sql = `
CREATE INDEX search_requests_query ON search_requests (account_id, normalized_query, created_at);
CREATE INDEX conversions_click ON conversions (click_id);
`;
