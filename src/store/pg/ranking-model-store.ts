import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { InterleavedOutcome, LoggedResult, RankingDecision, RankingModelStore, StoredRankingModel } from '../../core/learning/ports.js';
import { parseRankingModel } from '../../core/ranking/ranking.js';
import type { Db, Queryable } from './db.js';

interface ModelRow {
  id: string;
  scope: string;
  source: string;
  model: unknown;
  status: StoredRankingModel['status'];
  trained: Record<string, unknown>;
  evidence: Record<string, unknown> | null;
  created_at: Date;
  decided_at: Date | null;
}

const MODEL_COLUMNS = 'id, scope, source, model, status, trained, evidence, created_at, decided_at';

/** A stored model whose features no longer exist (an older release) cannot serve: it reads as absent. */
function toModel(r: ModelRow): StoredRankingModel | null {
  const model = parseRankingModel(r.model);
  if (model === null) return null;
  return {
    id: r.id,
    scope: r.scope,
    source: r.source,
    model: { ...model, source: r.source },
    status: r.status,
    trained: r.trained,
    evidence: r.evidence,
    createdAt: new Date(r.created_at),
    decidedAt: r.decided_at === null ? null : new Date(r.decided_at),
  };
}

async function logDecision(tx: Queryable, d: Omit<RankingDecision, 'id'>): Promise<void> {
  await tx.query(`INSERT INTO ranking_decisions (scope, action, model_id, previous_id, evidence, actor, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    d.scope,
    d.action,
    d.modelId,
    d.previousId,
    JSON.stringify(d.evidence),
    d.actor,
    d.createdAt,
  ]);
}

export class PgRankingModelStore implements RankingModelStore {
  constructor(private readonly db: Db) {}

  async active(scope: string): Promise<{ serving: StoredRankingModel | null; candidate: StoredRankingModel | null }> {
    const rows = await this.db.query<ModelRow>(`SELECT ${MODEL_COLUMNS} FROM ranking_models WHERE scope = $1 AND status IN ('serving', 'candidate')`, [scope]);
    const of = (status: string) => {
      const row = rows.find((r) => r.status === status);
      return row ? toModel(row) : null;
    };
    return { serving: of('serving'), candidate: of('candidate') };
  }

  async list(scope: string, limit: number): Promise<StoredRankingModel[]> {
    const rows = await this.db.query<ModelRow>(`SELECT ${MODEL_COLUMNS} FROM ranking_models WHERE scope = $1 ORDER BY created_at DESC, id LIMIT $2`, [
      scope,
      limit,
    ]);
    return rows.map(toModel).filter((m): m is StoredRankingModel => m !== null);
  }

  async decisions(scope: string, limit: number): Promise<RankingDecision[]> {
    const rows = await this.db.query<{
      id: string;
      scope: string;
      action: RankingDecision['action'];
      model_id: string | null;
      previous_id: string | null;
      evidence: Record<string, unknown>;
      actor: string;
      created_at: Date;
    }>(`SELECT id, scope, action, model_id, previous_id, evidence, actor, created_at FROM ranking_decisions WHERE scope = $1 ORDER BY id DESC LIMIT $2`, [
      scope,
      limit,
    ]);
    return rows.map((r) => ({
      id: Number(r.id),
      scope: r.scope,
      action: r.action,
      modelId: r.model_id,
      previousId: r.previous_id,
      evidence: r.evidence,
      actor: r.actor,
      createdAt: new Date(r.created_at),
    }));
  }

  async propose(m: Omit<StoredRankingModel, 'status' | 'evidence' | 'decidedAt'>, actor: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // The partial unique index allows one candidate per scope: a concurrent proposal loses here.
      const inserted = await tx.query(
        `INSERT INTO ranking_models (id, scope, source, model, status, trained, created_at) VALUES ($1, $2, $3, $4, 'candidate', $5, $6)
         ON CONFLICT DO NOTHING RETURNING id`,
        [m.id, m.scope, m.source, JSON.stringify(m.model), JSON.stringify(m.trained), m.createdAt],
      );
      if (inserted.length === 0) return false;
      const serving = await tx.query<{ id: string }>(`SELECT id FROM ranking_models WHERE scope = $1 AND status = 'serving'`, [m.scope]);
      await logDecision(tx, {
        scope: m.scope,
        action: 'propose',
        modelId: m.id,
        previousId: serving[0]?.id ?? null,
        evidence: m.trained,
        actor,
        createdAt: m.createdAt,
      });
      return true;
    });
  }

  async decide(scope: string, candidateId: string, action: 'promote' | 'reject', evidence: Record<string, unknown>, actor: string, at: Date): Promise<boolean> {
    return this.db
      .transaction(async (tx) => {
        const current = await tx.query<{ id: string }>(`SELECT id FROM ranking_models WHERE scope = $1 AND status = 'serving' FOR UPDATE`, [scope]);
        const previousId = current[0]?.id ?? null;
        if (action === 'promote' && previousId !== null) {
          await tx.query(`UPDATE ranking_models SET status = 'retired', decided_at = $2 WHERE id = $1`, [previousId, at]);
        }
        const updated = await tx.query(
          `UPDATE ranking_models SET status = $3, evidence = $4, decided_at = $5 WHERE scope = $1 AND id = $2 AND status = 'candidate' RETURNING id`,
          [scope, candidateId, action === 'promote' ? 'serving' : 'rejected', JSON.stringify(evidence), at],
        );
        if (updated.length === 0) throw new NotCandidate();
        await logDecision(tx, { scope, action, modelId: candidateId, previousId, evidence, actor, createdAt: at });
        return true;
      })
      .catch((err: unknown) => {
        if (err instanceof NotCandidate) return false;
        throw err;
      });
  }

  async rollback(scope: string, actor: string, at: Date): Promise<{ from: string; to: string | null } | null> {
    return this.db.transaction(async (tx) => {
      const current = await tx.query<{ id: string }>(`SELECT id FROM ranking_models WHERE scope = $1 AND status = 'serving' FOR UPDATE`, [scope]);
      const from = current[0]?.id;
      if (from === undefined) return null;
      // The model it replaced: the previous_id of the decision that promoted it.
      const promoted = await tx.query<{ previous_id: string | null }>(
        `SELECT previous_id FROM ranking_decisions WHERE scope = $1 AND action = 'promote' AND model_id = $2 ORDER BY id DESC LIMIT 1`,
        [scope, from],
      );
      const to = promoted[0]?.previous_id ?? null;
      await tx.query(`UPDATE ranking_models SET status = 'rejected', decided_at = $2 WHERE id = $1`, [from, at]);
      const candidates = await tx.query<{ id: string }>(
        `UPDATE ranking_models SET status = 'rejected', decided_at = $2 WHERE scope = $1 AND status = 'candidate' RETURNING id`,
        [scope, at],
      );
      if (to !== null) await tx.query(`UPDATE ranking_models SET status = 'serving', decided_at = $2 WHERE id = $1`, [to, at]);
      await logDecision(tx, {
        scope,
        action: 'rollback',
        modelId: to,
        previousId: from,
        evidence: { rejected_candidates: candidates.map((c) => c.id) },
        actor,
        createdAt: at,
      });
      return { from, to };
    });
  }

  /**
   * Read in pages of 25 searches with a turn of the event loop between them, so searches
   * sharing the database (on PGlite: its one connection and this thread) wait for one page at
   * most, not the whole log. PGlite answers in microtasks: without the explicit turn, the
   * loop over pages never let a timer or a socket in. The first read, the newest searches of every account, is maintenance work (the
   * longer statement bound); each page is a request-sized read.
   */
  async trainingLog(since: Date, limit: number): Promise<LoggedResult[]> {
    const ids = await this.db.transaction(
      // Test accounts' searches teach nothing (docs/commerce.md, "Test mode").
      (tx) =>
        tx.query<{ id: string }>(
          `SELECT id FROM search_requests WHERE created_at >= $1 AND account_id NOT IN (SELECT id FROM accounts WHERE NOT livemode)
            ORDER BY created_at DESC, id LIMIT $2`,
          [since, limit],
        ),
      { maintenance: true },
    );
    const out: LoggedResult[] = [];
    for (let i = 0; i < ids.length; i += TRAINING_PAGE) {
      await yieldToLoop();
      const page = ids.slice(i, i + TRAINING_PAGE).map((r) => r.id);
      const rows = await this.db.query<{
        request_id: string;
        session_id: string;
        query: string;
        product_id: string;
        position: number;
        features: number[];
        clicked: boolean;
        converted: boolean;
        vote: boolean | null;
      }>(
        `SELECT r.id AS request_id, r.session_id, r.normalized_query AS query, i.product_id, i.position, i.features,
                c.id IS NOT NULL AS clicked,
                c.id IS NOT NULL AND EXISTS (SELECT 1 FROM conversions v WHERE v.click_id = c.id) AS converted,
                (SELECT f.relevant FROM feedback f WHERE f.request_id = r.id AND f.product_id = i.product_id ORDER BY f.created_at DESC LIMIT 1) AS vote
           FROM search_requests r
           JOIN impressions i ON i.request_id = r.id AND i.features IS NOT NULL
           LEFT JOIN clicks c ON c.impression_id = i.id AND c.billable
          WHERE r.id = ANY($1::uuid[])
          ORDER BY r.created_at DESC, r.id, i.position`,
        [page],
      );
      for (const r of rows) {
        out.push({
          requestId: r.request_id,
          sessionId: r.session_id,
          query: r.query,
          productId: r.product_id,
          position: r.position,
          features: r.features.map(Number),
          clicked: r.clicked,
          converted: r.converted,
          vote: r.vote,
        });
      }
    }
    return out;
  }

  /** Maintenance work: every interleaved search of the candidate's test so far. */
  async interleavedOutcomes(candidateId: string): Promise<InterleavedOutcome[]> {
    const rows = await this.db.transaction(
      (tx) =>
        tx.query<{ serving: number; candidate: number }>(
          `SELECT count(DISTINCT i.product_id) FILTER (WHERE i.team = 0 AND c.id IS NOT NULL)::int AS serving,
              count(DISTINCT i.product_id) FILTER (WHERE i.team = 1 AND c.id IS NOT NULL)::int AS candidate
         FROM search_requests r
         JOIN impressions i ON i.request_id = r.id
         LEFT JOIN clicks c ON c.impression_id = i.id AND c.billable
        WHERE r.interleaved_with = $1
        GROUP BY r.account_id, r.session_id, r.normalized_query`,
          [candidateId],
        ),
      { maintenance: true },
    );
    return rows;
  }
}

class NotCandidate extends Error {}

const TRAINING_PAGE = 25;
