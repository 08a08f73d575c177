import type { QueryEvent } from '../../core/learning/ports.js';
import type { Db } from './db.js';
import { GroupCommit } from './group-commit.js';

type Read = { kind: 'version'; accountId: string } | { kind: 'events'; accountId: string; normalizedQuery: string; since: Date; limit: number };

/** The newest feedback row's time and how many rows share it (PgFeedbackStore turns it into a version). */
export interface FeedbackHead {
  latest: Date | null;
  n: number;
}

type Result = FeedbackHead | QueryEvent[];

interface Row {
  item: number;
  latest: Date | null;
  n: number | null;
  session_id: string | null;
  product_id: string | null;
  position: number | null;
  clicked: boolean | null;
  converted: boolean | null;
}

// Both halves keep the statements they replace: the feedback head walks the (account_id,
// created_at) index from the newest row; the events take the query's newest searches first, as
// many as asked, then their impressions, billable clicks and conversions.
const READ_ALL = `
  SELECT v.item, l.t AS latest,
         (SELECT count(*)::int FROM feedback f WHERE f.account_id = v.account_id AND f.created_at = l.t) AS n,
         NULL::uuid AS session_id, NULL::uuid AS product_id, NULL::int AS position, NULL::boolean AS clicked, NULL::boolean AS converted
    FROM unnest($1::uuid[], $2::int[]) AS v(account_id, item)
    CROSS JOIN LATERAL (SELECT max(created_at) AS t FROM feedback WHERE account_id = v.account_id) l
  UNION ALL
  SELECT e.item, NULL::timestamptz, NULL::int, r.session_id, i.product_id, i.position,
         c.id IS NOT NULL,
         EXISTS (SELECT 1 FROM conversions x WHERE x.click_id = c.id)
    FROM unnest($3::uuid[], $4::text[], $5::timestamptz[], $6::int[], $7::int[]) AS e(account_id, normalized_query, since, max_searches, item)
    CROSS JOIN LATERAL (SELECT id, session_id FROM search_requests
                         WHERE account_id = e.account_id AND normalized_query = e.normalized_query AND created_at >= e.since
                         ORDER BY created_at DESC LIMIT e.max_searches) r
    JOIN impressions i ON i.request_id = r.id
    LEFT JOIN clicks c ON c.impression_id = i.id AND c.billable`;

/**
 * The two reads a search makes beside its retrieval, the account's feedback head (for the
 * feedback version) and what earlier searches of its query showed and got clicked (per-query
 * learning), as one statement instead of two. A search asks for both in the same tick, and reads
 * that arrive while earlier ones are at the database (other searches) wait and go together, as
 * GroupCommit does for writes; each read still starts after its caller asked, so it sees every
 * row committed before. PgFeedbackStore and PgLearningStore share one instance (createPgStores).
 */
export class SearchReads {
  private readonly batches = new GroupCommit<Read, Result>({ run: (reads) => this.readAll(reads), maxInFlight: 2 });

  constructor(private readonly db: Db) {}

  feedbackHead(accountId: string): Promise<FeedbackHead> {
    return this.batches.submit({ kind: 'version', accountId }) as Promise<FeedbackHead>;
  }

  queryEvents(accountId: string, normalizedQuery: string, since: Date, limit: number): Promise<QueryEvent[]> {
    return this.batches.submit({ kind: 'events', accountId, normalizedQuery, since, limit }) as Promise<QueryEvent[]>;
  }

  private async readAll(reads: readonly Read[]): Promise<Result[]> {
    const versions: { accountId: string; item: number }[] = [];
    const events: (Extract<Read, { kind: 'events' }> & { item: number })[] = [];
    for (const [item, read] of reads.entries()) {
      if (read.kind === 'version') versions.push({ accountId: read.accountId, item });
      else events.push({ ...read, item });
    }
    const rows = await this.db.query<Row>(READ_ALL, [
      versions.map((v) => v.accountId),
      versions.map((v) => v.item),
      events.map((e) => e.accountId),
      events.map((e) => e.normalizedQuery),
      events.map((e) => e.since),
      events.map((e) => e.limit),
      events.map((e) => e.item),
    ]);
    const results: Result[] = reads.map((read) => (read.kind === 'version' ? { latest: null, n: 0 } : []));
    for (const r of rows) {
      if (reads[r.item]!.kind === 'version') results[r.item] = { latest: r.latest, n: r.n ?? 0 };
      else
        (results[r.item] as QueryEvent[]).push({
          sessionId: r.session_id!,
          productId: r.product_id!,
          position: r.position!,
          clicked: r.clicked!,
          converted: r.converted!,
        });
    }
    return results;
  }
}
