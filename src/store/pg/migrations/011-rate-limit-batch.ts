/**
 * Rate limits in batches: rate_limit_consume applies many GCRA consumes in one call, so the
 * concurrent requests of a process cost one statement and one commit (PgRateLimitStore groups them).
 *
 * Item i asks for increment_ms[i] of bucket buckets[i] at now_ms[i] within window_ms[i]. Items are
 * applied in array order within a bucket, each exactly as one-at-a-time consumes would be:
 * - a bucket without a row starts at now + increment, allowed (whatever the increment);
 * - otherwise new_tat = max(tat, now) + increment is allowed when new_tat - now <= window, and
 *   the bucket moves to it; a refused item leaves the bucket and answers its current tat.
 * Each bucket row is locked once, buckets in byte order (COLLATE "C"), so concurrent calls from any
 * number of processes lock in one order and cannot deadlock; each row is written once per call
 * (twice for a bucket created by the call). One result row per item: its index (1-based), the
 * decision and the tat it answers.
 */
export const sql = `
CREATE FUNCTION rate_limit_consume(buckets text[], now_ms float8[], increment_ms float8[], window_ms float8[])
RETURNS TABLE (item integer, allowed boolean, tat float8)
LANGUAGE plpgsql AS $fn$
DECLARE
  req record;
  current_bucket text := NULL;
  bucket_tat float8;
  start_tat float8;
  next_tat float8;
  created boolean;
BEGIN
  FOR req IN
    SELECT u.b, u.n, u.inc, u.win, u.i::integer AS i
    FROM unnest(buckets, now_ms, increment_ms, window_ms) WITH ORDINALITY AS u(b, n, inc, win, i)
    ORDER BY u.b COLLATE "C", u.i
  LOOP
    IF current_bucket IS DISTINCT FROM req.b THEN
      IF current_bucket IS NOT NULL AND bucket_tat IS DISTINCT FROM start_tat THEN
        UPDATE rate_limits r SET tat_ms = bucket_tat WHERE r.bucket = current_bucket;
      END IF;
      current_bucket := req.b;
      created := false;
      LOOP
        SELECT r.tat_ms INTO bucket_tat FROM rate_limits r WHERE r.bucket = req.b FOR UPDATE;
        EXIT WHEN FOUND;
        -- A new bucket: the first item is allowed and creates the row (locked as ours). When a
        -- concurrent call created it first, this waits for its commit, inserts nothing, and the
        -- next SELECT (a new snapshot) locks that row instead.
        INSERT INTO rate_limits AS r (bucket, tat_ms) VALUES (req.b, req.n + req.inc)
        ON CONFLICT (bucket) DO NOTHING RETURNING r.tat_ms INTO bucket_tat;
        created := FOUND;
        EXIT WHEN created;
      END LOOP;
      start_tat := bucket_tat;
      IF created THEN
        item := req.i; allowed := true; tat := bucket_tat;
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;
    next_tat := GREATEST(bucket_tat, req.n) + req.inc;
    IF next_tat - req.n <= req.win THEN
      bucket_tat := next_tat;
      item := req.i; allowed := true; tat := next_tat;
    ELSE
      item := req.i; allowed := false; tat := bucket_tat;
    END IF;
    RETURN NEXT;
  END LOOP;
  IF current_bucket IS NOT NULL AND bucket_tat IS DISTINCT FROM start_tat THEN
    UPDATE rate_limits r SET tat_ms = bucket_tat WHERE r.bucket = current_bucket;
  END IF;
END
$fn$;
`;
