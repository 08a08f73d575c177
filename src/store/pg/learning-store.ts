import type { QueryEvent } from '../../core/learning/ports.js';
import type { ShownResult } from '../../core/learning/ports.js';
import type { LearningStore } from '../../core/learning/ports.js';
import type { Db } from './db.js';
import { SearchReads } from './search-reads.js';

export class PgLearningStore implements LearningStore {
  /** `reads`: shared with the feedback store, so a search's two reads go as one statement (search-reads.ts). */
  constructor(
    private readonly db: Db,
    private readonly reads = new SearchReads(db),
  ) {}

  queryEvents(accountId: string, normalizedQuery: string, since: Date, limit: number): Promise<QueryEvent[]> {
    return this.reads.queryEvents(accountId, normalizedQuery, since, limit);
  }

  async shownResults(accountId: string, since: Date, limit: number): Promise<ShownResult[]> {
    const rows = await this.db.query<{ query: string; product_id: string; position: number; clicked: boolean }>(
      `SELECT r.normalized_query AS query, i.product_id, i.position, c.id IS NOT NULL AS clicked
         FROM (SELECT id, normalized_query FROM search_requests
                WHERE account_id = $1 AND created_at >= $2
                ORDER BY created_at DESC LIMIT $3) r
         JOIN impressions i ON i.request_id = r.id
         LEFT JOIN clicks c ON c.impression_id = i.id AND c.billable`,
      [accountId, since, limit],
    );
    return rows.map((r) => ({ query: r.query, productId: r.product_id, position: r.position, clicked: r.clicked }));
  }
}
