import type { LearningStore, QueryEvent, ShownResult } from '../../core/learning/ports.js';
import type { Db } from './db.js';

export class PgLearningStore implements LearningStore {
  constructor(private readonly db: Db) {}

  async queryEvents(accountId: string, normalizedQuery: string, since: Date, limit: number): Promise<QueryEvent[]> {
    const rows = await this.db.query<{ session_id: string; product_id: string; position: number; clicked: boolean; converted: boolean }>(
      `SELECT r.session_id, i.product_id, i.position,
              c.id IS NOT NULL AS clicked,
              EXISTS (SELECT 1 FROM conversions v WHERE v.click_id = c.id) AS converted
         FROM (SELECT id, session_id FROM search_requests
                WHERE account_id = $1 AND normalized_query = $2 AND created_at >= $3
                ORDER BY created_at DESC LIMIT $4) r
         JOIN impressions i ON i.request_id = r.id
         LEFT JOIN clicks c ON c.impression_id = i.id AND c.billable`,
      [accountId, normalizedQuery, since, limit],
    );
    return rows.map((r) => ({ sessionId: r.session_id, productId: r.product_id, position: r.position, clicked: r.clicked, converted: r.converted }));
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
