import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { RankingModel } from '../ranking/ranking.js';
import type { Logger } from '../shared-ports.js';
import { DEFAULT_GLOBAL_FIT, fitFromLog, type GlobalFitOptions, type GlobalFitReport } from './global-fit.js';
import { type GuardRule, guardDecision, type InterleavingEvidence, interleavingEvidence } from './interleaving.js';
import type { RankingDecision, RankingModelStore, StoredRankingModel } from './ports.js';

/** A model to rank with: a learned one (its id) or the catalog's own (id null: fitted at import, by calibrate, or the fallback). */
interface ServedModel {
  id: string | null;
  model: RankingModel;
}

export interface ActiveModels {
  serving: ServedModel;
  /** A learned model under test: searches interleave it with the serving one. */
  candidate: ServedModel | null;
}

/** How long a process holds the models it read: a promotion or rollback reaches every process within it. */
export const RANKING_REFRESH_MS = 10_000;

/**
 * Which model serves, as every process on one database sees it: read from the database and held
 * for `refreshMs`, then re-read in the background while the held one keeps serving. A promotion
 * or rollback made by any process reaches all of them within `refreshMs`. A failed read keeps
 * what was held (the catalog's model before the first read).
 */
export class RankingModels {
  private held: { at: number; value: ActiveModels } | null = null;
  private loading: Promise<ActiveModels> | null = null;

  /** `base`: the catalog's own model, fixed or read per call (the serving catalog version's, catalog-model.ts). */
  constructor(
    private readonly deps: { store: RankingModelStore; scope: string; base: RankingModel | (() => RankingModel); logger: Logger; refreshMs: number },
  ) {}

  get base(): RankingModel {
    const base = this.deps.base;
    return typeof base === 'function' ? base() : base;
  }

  get scope(): string {
    return this.deps.scope;
  }

  /** refreshMs 0 reads on every call (tests, and the simulator). */
  async active(): Promise<ActiveModels> {
    if (this.held === null || this.deps.refreshMs === 0) return this.refresh();
    if (performance.now() - this.held.at >= this.deps.refreshMs) void this.refresh();
    const value = this.held.value;
    // Without a learned model the catalog's serves, as of now: it moves with the catalog version.
    return value.serving.id === null ? { ...value, serving: { id: null, model: this.base } } : value;
  }

  /** Reads the models now (a read already under way is joined). */
  refresh(): Promise<ActiveModels> {
    this.loading ??= this.deps.store
      .active(this.deps.scope)
      .then(({ serving, candidate }) => {
        const value: ActiveModels = {
          serving: serving ? served(serving) : { id: null, model: this.base },
          candidate: candidate ? served(candidate) : null,
        };
        this.held = { at: performance.now(), value };
        return value;
      })
      .catch((err: unknown) => {
        this.deps.logger.warn({ err }, 'reading the learned ranking models failed; serving the models held');
        const value = this.held?.value ?? { serving: { id: null, model: this.base }, candidate: null };
        this.held = { at: performance.now(), value };
        return value;
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }
}

const served = (m: StoredRankingModel): ServedModel => ({ id: m.id, model: m.model });

export interface LearnerOptions {
  /** How far back the event log trains. */
  windowMs: number;
  /** The newest searches read per fit (bounds memory and time). */
  maxSearches: number;
  guard: GuardRule;
  /** A candidate untested after this long is rejected. */
  maxTestMs: number;
  /** After a rejection or a rollback, no new candidate for this long (the log must change first). */
  cooldownMs: number;
  fit: GlobalFitOptions;
}

const DAY_MS = 86_400_000;

const DEFAULT_LEARNER: LearnerOptions = {
  windowMs: 90 * DAY_MS,
  maxSearches: 5_000,
  // 200 people with a preference: a true 60/40 split is significant at 0.05 about 9 times in 10.
  guard: { minDecisive: 200, alpha: 0.05, maxDecisive: 3_000 },
  maxTestMs: 14 * DAY_MS,
  cooldownMs: DAY_MS,
  fit: DEFAULT_GLOBAL_FIT,
};

export type LearningRun =
  | { action: 'promote' | 'reject'; candidate: string; evidence: InterleavingEvidence & { reason: string } }
  | { action: 'testing'; candidate: string; evidence: InterleavingEvidence }
  | { action: 'propose'; candidate: string; fit: GlobalFitReport }
  | { action: 'none'; reason: string; fit?: GlobalFitReport };

export interface RankingStatus {
  scope: string;
  /** The catalog's own model: what serves when no learned model does. */
  base: string;
  serving: StoredRankingModel | null;
  candidate: (StoredRankingModel & { interleaving: InterleavingEvidence }) | null;
  decisions: RankingDecision[];
  guard: GuardRule;
}

/**
 * Global learning's schedule: each run either judges the candidate under test (team-draft
 * interleaving, interleaving.ts) and promotes or rejects it, or fits a new candidate from the
 * event log (global-fit.ts). Nothing a run learns serves before it has won on live traffic.
 * Decisions go to the log (ranking_decisions) and the logger with their evidence.
 */
export class RankingLearner {
  private running: Promise<LearningRun> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  readonly options: LearnerOptions;

  constructor(
    private readonly deps: {
      store: RankingModelStore;
      models: RankingModels;
      clock: Clock;
      logger: Logger;
      options?: Partial<LearnerOptions>;
      /** The fit itself: fitFromLog on this thread unless given (the server runs it on a worker thread). */
      fit?: typeof fitFromLog;
    },
  ) {
    this.options = { ...DEFAULT_LEARNER, ...deps.options };
  }

  /** One run now; a run already going is joined, not doubled. */
  runOnce(): Promise<LearningRun> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  start(intervalMs: number): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      this.runOnce().catch((err: unknown) => this.deps.logger.error({ err }, 'ranking learning failed'));
    }, intervalMs).unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  async status(): Promise<RankingStatus> {
    const { store, models } = this.deps;
    const [{ serving, candidate }, decisions] = await Promise.all([store.active(models.scope), store.decisions(models.scope, 20)]);
    return {
      scope: models.scope,
      base: models.base.source,
      serving,
      candidate: candidate ? { ...candidate, interleaving: interleavingEvidence(await store.interleavedOutcomes(candidate.id)) } : null,
      decisions,
      guard: this.options.guard,
    };
  }

  /** The operator's undo: the learned model serving now stops, the one before it serves again. */
  async rollback(actor = 'operator'): Promise<{ from: string; to: string | null } | null> {
    const result = await this.deps.store.rollback(this.deps.models.scope, actor, this.deps.clock.now());
    if (result) this.deps.logger.warn({ from: result.from, to: result.to ?? this.deps.models.base.source, actor }, 'ranking model rolled back');
    await this.deps.models.refresh();
    return result;
  }

  private async run(): Promise<LearningRun> {
    const { store, models, clock, logger } = this.deps;
    const now = clock.now();
    const { serving, candidate } = await store.active(models.scope);
    if (candidate) {
      const evidence = interleavingEvidence(await store.interleavedOutcomes(candidate.id));
      let decision = guardDecision(evidence, this.options.guard);
      let reason = decision === 'promote' ? 'won the interleaving test' : 'lost the interleaving test or did not win it within its budget';
      if (decision === 'continue' && now.getTime() - candidate.createdAt.getTime() > this.options.maxTestMs) {
        decision = 'reject';
        reason = 'not enough evidence within the test period';
      }
      if (decision === 'continue') {
        // The log has grown since the candidate was fitted: a refit that ranks the held-out log
        // queries clearly better than both models takes its place (its test starts afresh).
        const next = await this.fit(serving, candidate.model);
        if (next.model === null) return { action: 'testing', candidate: candidate.id, evidence };
        const superseded = { ...evidence, reason: `superseded by ${next.id}, fitted on a larger log`, guard: this.options.guard };
        if (!(await store.decide(models.scope, candidate.id, 'reject', superseded, 'learner', now)))
          return { action: 'testing', candidate: candidate.id, evidence };
        logger.info({ candidate: candidate.id, evidence: superseded }, 'ranking model rejected');
        return this.propose(next.id, next.model, next.report, serving, now);
      }
      const full = { ...evidence, reason, guard: this.options.guard };
      if (await store.decide(models.scope, candidate.id, decision, full, 'learner', now)) {
        logger.info(
          { candidate: candidate.id, previous: serving?.id ?? models.base.source, evidence: full },
          decision === 'promote' ? 'ranking model promoted' : 'ranking model rejected',
        );
      }
      await models.refresh();
      return { action: decision, candidate: candidate.id, evidence: { ...evidence, reason } };
    }
    const [last] = await store.decisions(models.scope, 1);
    // After a rejection, or an operator's rollback, the next candidate waits: the log must change first.
    if ((last?.action === 'reject' || last?.action === 'rollback') && now.getTime() - last.createdAt.getTime() < this.options.cooldownMs) {
      return { action: 'none', reason: `the last decision (${last.action}, ${last.createdAt.toISOString()}) is within the cool-down; the next fit waits` };
    }
    const next = await this.fit(serving, undefined);
    if (next.model === null) return { action: 'none', reason: next.report.skipped ?? 'nothing to propose', fit: next.report };
    return this.propose(next.id, next.model, next.report, serving, now);
  }

  private async fit(
    serving: StoredRankingModel | null,
    incumbent: RankingModel | undefined,
  ): Promise<{ id: string; model: RankingModel | null; report: GlobalFitReport }> {
    const { store, models, clock } = this.deps;
    const started = performance.now();
    const log = await store.trainingLog(new Date(clock.now().getTime() - this.options.windowMs), this.options.maxSearches);
    const read = performance.now();
    const id = `rm_${newId().replace(/-/g, '').slice(0, 16)}`;
    const { model, report } = await (this.deps.fit ?? fitFromLog)(log, serving?.model ?? models.base, `learned ${id}`, this.options.fit, incumbent);
    // How long reading the log and fitting took, for the log line and `ranking status`.
    report.readMs = Math.round(read - started);
    report.fitMs = Math.round(performance.now() - read);
    return { id, model, report };
  }

  private async propose(id: string, model: RankingModel, report: GlobalFitReport, serving: StoredRankingModel | null, now: Date): Promise<LearningRun> {
    const { store, models, logger } = this.deps;
    const trained = { ...report, from: serving?.id ?? models.base.source };
    if (!(await store.propose({ id, scope: models.scope, source: model.source, model, trained, createdAt: now }, 'learner'))) {
      await models.refresh();
      return { action: 'none', reason: 'another process proposed a candidate first' };
    }
    logger.info({ candidate: id, fit: report }, 'ranking model proposed: interleaving it with the serving model');
    await models.refresh();
    return { action: 'propose', candidate: id, fit: report };
  }
}

/**
 * The serving models of one scope (the catalog's embedding model) and their learner, as the
 * server's core builds them and as `npm run learn` and `npm run aisle -- ranking …` do without a
 * search service: judging, fitting and rolling back read only the database and the catalog's own
 * model, never the embedder.
 */
export function createRankingLearning(deps: {
  store: RankingModelStore;
  scope: string;
  base: RankingModel | (() => RankingModel);
  clock: Clock;
  logger: Logger;
  refreshMs: number;
  options?: Partial<LearnerOptions>;
  fit?: typeof fitFromLog;
}): { models: RankingModels; learner: RankingLearner } {
  const { store, scope, base, clock, logger, refreshMs } = deps;
  const models = new RankingModels({ store, scope, base, logger, refreshMs });
  const learner = new RankingLearner({
    store,
    models,
    clock,
    logger,
    ...(deps.options ? { options: deps.options } : {}),
    ...(deps.fit ? { fit: deps.fit } : {}),
  });
  return { models, learner };
}
