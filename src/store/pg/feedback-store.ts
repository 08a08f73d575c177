import type { FeedbackStore, FeedbackVote, NewFeedback } from '../../core/feedback/ports.js';
import { eventData } from '../../core/webhooks/events.js';
import type { Db } from './db.js';
import { appendEvent } from './outbox.js';

const toBytes = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

// pg answers bytea as a Buffer, PGlite as a Uint8Array; copy so the floats are aligned.
const toVector = (bytes: Uint8Array): Float32Array => new Float32Array(Uint8Array.from(bytes).buffer);

export class PgFeedbackStore implements FeedbackStore {
  constructor(private readonly db: Db) {}

  async findSearch(accountId: string, requestId: string): Promise<{ query: string; productIds: string[] } | null> {
    const rows = await this.db.query<{ query: string; product_ids: string[] }>(
      `SELECT r.query, COALESCE(array_agg(i.product_id::text ORDER BY i.position) FILTER (WHERE i.id IS NOT NULL), '{}') AS product_ids
       FROM search_requests r LEFT JOIN impressions i ON i.request_id = r.id
       WHERE r.id = $1 AND r.account_id = $2 GROUP BY r.id`,
      [requestId, accountId],
    );
    const r = rows[0];
    return r ? { query: r.query, productIds: r.product_ids } : null;
  }

  async insert(f: NewFeedback): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO feedback (id, account_id, key_id, request_id, product_id, relevant, reason, user_clicked, query, model, query_vector, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          f.id,
          f.accountId,
          f.keyId,
          f.requestId,
          f.productId,
          f.relevant,
          f.reason,
          f.userClicked,
          f.query,
          f.model,
          f.queryVector ? toBytes(f.queryVector) : null,
          f.createdAt,
        ],
      );
      await appendEvent(tx, {
        accountId: f.accountId,
        type: 'feedback',
        createdAt: f.createdAt,
        data: eventData.feedback({ feedbackId: f.id, requestId: f.requestId, productId: f.productId, relevant: f.relevant, reason: f.reason }),
      });
    });
  }

  /**
   * Changes whenever the account gets feedback: the newest time and how many rows carry it. Both
   * come from the (account_id, created_at) index, so the check runs on every search at the same
   * cost whatever the account's feedback volume (a count(*) grew with it). A row stamped earlier
   * than the newest (clock skew between processes) is picked up with the next newer one.
   */
  async version(accountId: string): Promise<string> {
    const rows = await this.db.query<{ latest: Date | null; n: number }>(
      `WITH latest AS (SELECT max(created_at) AS t FROM feedback WHERE account_id = $1)
       SELECT latest.t AS latest, (SELECT count(*)::int FROM feedback WHERE account_id = $1 AND created_at = latest.t) AS n FROM latest`,
      [accountId],
    );
    const r = rows[0];
    return `${r?.n ?? 0}:${r?.latest ? new Date(r.latest).getTime() : 0}`;
  }

  /**
   * Walks the (account_id, created_at) index from the newest row and stops at `limit`, so a
   * read costs the same whatever the account's feedback volume (a DISTINCT ON over every row grew
   * with it).
   */
  async votes(accountId: string, model: string, limit: number, since?: Date): Promise<FeedbackVote[]> {
    const rows = await this.db.query<{ id: string; request_id: string; product_id: string; relevant: boolean; query_vector: Uint8Array; created_at: Date }>(
      `SELECT id, request_id, product_id, relevant, query_vector, created_at
       FROM feedback WHERE account_id = $1 AND model = $2 AND query_vector IS NOT NULL${since ? ' AND created_at >= $4' : ''}
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      since ? [accountId, model, limit, since] : [accountId, model, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      requestId: r.request_id,
      productId: r.product_id,
      relevant: r.relevant,
      queryVector: toVector(r.query_vector),
      createdAt: new Date(r.created_at),
    }));
  }
}
