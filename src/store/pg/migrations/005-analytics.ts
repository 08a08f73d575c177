/** The request log behind GET /usage and GET /analytics/performance (docs/analytics.md). */
export const sql = `
-- One row per authenticated request, written in batches off the request path. No primary key:
-- rows are only appended, read by range and pruned by age, and a key would cost every insert.
-- route is the template (/v1/clicks/:impression_id), so ids never reach this table.
CREATE TABLE request_log (
  account_id  uuid NOT NULL,
  key_id      uuid NOT NULL,
  method      text NOT NULL,
  route       text NOT NULL,
  status      smallint NOT NULL,
  latency_ms  double precision NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX request_log_account_time ON request_log (account_id, created_at);
-- Retention deletes by age across accounts; rows arrive in time order, so a BRIN index is enough.
CREATE INDEX request_log_time ON request_log USING brin (created_at);
`;
