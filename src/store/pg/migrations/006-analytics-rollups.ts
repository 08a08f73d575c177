/**
 * Rollups behind the analytics figures (docs/analytics.md) at scale (1M impressions and 1M request-log rows answer in tens of
 * milliseconds instead of seconds). They are derived from committed rows lazily, on read: a closed
 * hour (or day) is summed once, the first time someone asks after it is SETTLE_MS old, and never
 * changes afterwards; what is newer is read from the raw rows. See analytics-store.ts.
 */
export const sql = `
-- How far each account's rollups reach: every complete hour (day) before these is rolled up;
-- NULL until the first roll-up.
CREATE TABLE analytics_rollup_state (
  account_id   uuid PRIMARY KEY,
  hours_until  timestamptz,
  days_until   timestamptz
);

-- Business activity per hour: searches, results, impressions, billable clicks, conversions, feedback.
CREATE TABLE activity_hourly (
  account_id   uuid NOT NULL,
  hour         timestamptz NOT NULL,
  searches     integer NOT NULL,
  results      integer NOT NULL,
  impressions  integer NOT NULL,
  clicks       integer NOT NULL,
  conversions  integer NOT NULL,
  revenue      numeric(24, 4) NOT NULL,
  feedback     integer NOT NULL,
  PRIMARY KEY (account_id, hour)
);

-- Authenticated requests per hour and key (GET /usage).
CREATE TABLE requests_hourly (
  account_id  uuid NOT NULL,
  hour        timestamptz NOT NULL,
  key_id      uuid NOT NULL,
  requests    integer NOT NULL,
  errors      integer NOT NULL,
  PRIMARY KEY (account_id, hour, key_id)
);

-- Requests per day, endpoint, status and recorded latency (latencies are recorded on a 2 % grid,
-- so a day holds a few hundred distinct values per endpoint): exact percentiles over any days.
CREATE TABLE latency_daily (
  account_id  uuid NOT NULL,
  day         timestamptz NOT NULL,
  method      text NOT NULL,
  route       text NOT NULL,
  status      smallint NOT NULL,
  latency_ms  double precision NOT NULL,
  requests    integer NOT NULL,
  PRIMARY KEY (account_id, day, method, route, status, latency_ms)
);

-- Per day and product, and per day and stored query: top_products and top_queries over long ranges.
CREATE TABLE product_daily (
  account_id   uuid NOT NULL,
  day          timestamptz NOT NULL,
  product_id   uuid NOT NULL,
  impressions  integer NOT NULL,
  clicks       integer NOT NULL,
  conversions  integer NOT NULL,
  revenue      numeric(24, 4) NOT NULL,
  PRIMARY KEY (account_id, day, product_id)
);

-- clicks: billable clicks that day on results of searches with this query (whenever searched).
CREATE TABLE query_daily (
  account_id  uuid NOT NULL,
  day         timestamptz NOT NULL,
  query       text NOT NULL,
  searches    integer NOT NULL,
  results     integer NOT NULL,
  clicks      integer NOT NULL,
  PRIMARY KEY (account_id, day, query)
);
`;
