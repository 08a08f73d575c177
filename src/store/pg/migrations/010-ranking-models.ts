/**
 * Global learning (src/core/learning): what the ranking saw when it ranked, and the models it
 * learned.
 * - Each shown result keeps the ranking features it was ranked on (`features`, FEATURE_NAMES
 *   order), so a model is fitted from the event log alone, as it was served, without re-running
 *   old searches against a catalog that has since changed.
 * - A search interleaved between the serving model and a candidate names the candidate, and each
 *   of its results the team that placed it (0 serving, 1 candidate, null where both agreed).
 * - ranking_models holds every learned model: at most one serving and one candidate per scope
 *   (the catalog's embedding model, as the calibration is keyed). ranking_decisions is the log of
 *   every proposal, promotion, rejection and rollback with its evidence.
 */
export const sql = `
ALTER TABLE search_requests ADD COLUMN ranking_model text;
ALTER TABLE search_requests ADD COLUMN interleaved_with text;
ALTER TABLE impressions ADD COLUMN features real[];
ALTER TABLE impressions ADD COLUMN team smallint CHECK (team IN (0, 1));
CREATE INDEX search_requests_time ON search_requests (created_at);
CREATE INDEX feedback_request ON feedback (request_id, product_id);
CREATE INDEX search_requests_interleaved ON search_requests (interleaved_with, created_at) WHERE interleaved_with IS NOT NULL;

CREATE TABLE ranking_models (
  id          text PRIMARY KEY,
  scope       text NOT NULL,
  source      text NOT NULL,
  model       jsonb NOT NULL,
  status      text NOT NULL CHECK (status IN ('candidate', 'serving', 'retired', 'rejected')),
  trained     jsonb NOT NULL,
  evidence    jsonb,
  created_at  timestamptz NOT NULL,
  decided_at  timestamptz
);
CREATE UNIQUE INDEX ranking_models_one_serving ON ranking_models (scope) WHERE status = 'serving';
CREATE UNIQUE INDEX ranking_models_one_candidate ON ranking_models (scope) WHERE status = 'candidate';

CREATE TABLE ranking_decisions (
  id          bigserial PRIMARY KEY,
  scope       text NOT NULL,
  action      text NOT NULL CHECK (action IN ('propose', 'promote', 'reject', 'rollback')),
  model_id    text,
  previous_id text,
  evidence    jsonb NOT NULL,
  actor       text NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX ranking_decisions_scope ON ranking_decisions (scope, id);
`;
