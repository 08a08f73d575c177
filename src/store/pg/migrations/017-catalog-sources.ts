/**
 * Catalog sources (docs/ingest.md, "Feeds pulled on a schedule"): feed URLs an operator
 * registers, pulled by one process on their schedule; the last 20 pulls of each are kept.
 */
export const sql = `
CREATE TABLE catalog_sources (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url              text NOT NULL,
  format           text,
  mapping          jsonb,
  merchant         text,
  schedule_minutes integer NOT NULL,
  etag             text,
  last_modified    text,
  next_pull_at     timestamptz NOT NULL,
  pulling_until    timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX catalog_sources_account ON catalog_sources (account_id, created_at);
CREATE INDEX catalog_sources_due ON catalog_sources (next_pull_at);

CREATE TABLE catalog_source_pulls (
  id          uuid PRIMARY KEY,
  source_id   uuid NOT NULL REFERENCES catalog_sources(id) ON DELETE CASCADE,
  started_at  timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  status      text NOT NULL,
  error       text,
  products    jsonb NOT NULL
);
CREATE INDEX catalog_source_pulls_source ON catalog_source_pulls (source_id, started_at DESC);
`;
