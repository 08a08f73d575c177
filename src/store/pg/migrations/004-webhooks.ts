/** Webhook endpoints, the transactional outbox (events), deliveries and their attempts (docs/webhooks.md). */
export const sql = `
-- Secrets are kept as issued (whsec_…): signing needs the key itself, not a hash. They never leave
-- except in the create/rotate response, and are never logged.
CREATE TABLE webhook_endpoints (
  id                          uuid PRIMARY KEY,
  account_id                  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url                         text NOT NULL,
  events                      text[] NOT NULL,
  description                 text,
  status                      text NOT NULL CHECK (status IN ('enabled', 'disabled')),
  disabled_reason             text CHECK (disabled_reason IN ('manual', 'failing')),
  secret                      text NOT NULL,
  previous_secret             text,
  previous_secret_expires_at  timestamptz,
  failing_since               timestamptz,
  created_at                  timestamptz NOT NULL,
  updated_at                  timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_account_page ON webhook_endpoints (account_id, created_at DESC, id DESC);

-- The outbox: written in the same transaction as the search, click, conversion or feedback.
-- payload is the exact envelope text that is signed and sent, so every retry sends the same bytes.
CREATE TABLE webhook_events (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type        text NOT NULL,
  payload     text NOT NULL,
  created_at  timestamptz NOT NULL
);

CREATE TABLE webhook_deliveries (
  id                  uuid PRIMARY KEY,
  event_id            uuid NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  endpoint_id         uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  account_id          uuid NOT NULL,
  status              text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempt_count       integer NOT NULL DEFAULT 0,
  next_attempt_at     timestamptz,
  lease_until         timestamptz,
  lease_token         uuid,
  last_attempt_at     timestamptz,
  last_status_code    integer,
  last_duration_ms    double precision,
  last_error          text,
  last_response_body  text,
  created_at          timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
-- Workers claim from these two: due pending rows, and rows whose worker died holding the lease.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX webhook_deliveries_endpoint_page ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

-- One row per attempt, never updated.
CREATE TABLE webhook_attempts (
  id             uuid PRIMARY KEY,
  delivery_id    uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt        integer NOT NULL,
  started_at     timestamptz NOT NULL,
  status_code    integer,
  duration_ms    double precision NOT NULL,
  error          text,
  response_body  text
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
`;
