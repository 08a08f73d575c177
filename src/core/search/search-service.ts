import { toEmbeddingInput } from '../catalog/embedding-text.js';
import type { CatalogFilter, CatalogStore } from '../catalog/ports.js';
import type { AttributionTokens } from '../clicks/attribution.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { ShopperKnowledge } from '../knowledge/ports.js';
import type { Taxonomy } from '../knowledge/taxonomy.js';
import { type Team, teamDraft } from '../learning/interleaving.js';
import type { ActiveModels } from '../learning/ranking-learner.js';
import type { Meter, SearchStage } from '../metering.js';
import { applyPiiPolicy, type PiiType } from '../pii/pii.js';
import type { ResolvedPolicy } from '../policy/policy-service.js';
import { productTerms } from '../ranking/features.js';
import { CatalogLexicon } from '../ranking/lexical.js';
import { extractPriceConstraint, type PriceConstraint } from '../ranking/query-text.js';
import { type Candidate, diversify, FALLBACK_MODEL, FEATURE_BM25, type RankingModel, scoreRow, toProbability, weightVector } from '../ranking/ranking.js';
import { type RetrievalMode, retrieveCandidates } from '../ranking/retrieval.js';
import { OfflineReader } from '../reading/offline-reader.js';
import type { NeedReader, ReadInput, Reading } from '../reading/ports.js';
import type { PlaygroundRequest, PlaygroundResponse } from '../schemas/console.js';
import { type AdResponse, DEFAULT_MIN_RELEVANCE, type NoFillReason, type ReaderName, type SearchRequest, type SearchResponse } from '../schemas/search.js';
import type { Embedder, Principal } from '../shared-ports.js';
import { inSpan, inSpanSync } from '../spans.js';
import { needSignals } from '../understanding/conversation.js';
import { DEFAULT_CONVERSATION_MODEL, needProbability } from '../understanding/conversation-model.js';
import type { Need, Turn } from '../understanding/need.js';
import { CatalogVocabulary } from '../understanding/vocabulary.js';
import { catalogFilter, silencedByPolicy } from './filters.js';
import type { SearchStore, SessionState } from './ports.js';
import { PRICE_ORDER, priceOrderCandidate, toAdResponse } from './results.js';

/** How long a session lives after its last use, unless configured (AISLE_SESSION_TTL_HOURS). */
export const SESSION_TTL_MS = 24 * 3600 * 1000;

/** The query as stored and as learning matches it: lower case, whitespace collapsed. */
const normalizeQuery = (query: string): string => query.toLowerCase().replace(/\s+/g, ' ').trim();

/** Already-shown products are demoted, not removed (docs/search.md). */
const SHOWN_DEMOTION = 0.8;
const SESSION_MEMORY = { queries: 10, shown: 100, clicked: 50 };
/** A knowledge-base match from this score is evidence of a shopping need: P(need) is at least KNOWN_NEED_PROBABILITY (docs/knowledge.md). */
const STRONG_KNOWLEDGE = 0.8;
const KNOWN_NEED_PROBABILITY = 0.8;

export interface SearchServiceDeps {
  catalog: CatalogStore;
  embedder: Embedder;
  store: SearchStore;
  clock: Clock;
  /** A session is loaded while used within this (default SESSION_TTL_MS); retention deletes it after. */
  sessionTtlMs?: number;
  /**
   * The catalog's own model: fixed, or read per search (the serving catalog version's,
   * catalog-model.ts); FALLBACK_MODEL when absent.
   */
  model?: RankingModel | (() => RankingModel);
  /**
   * The learned models (global learning): which serves, and a candidate under test to interleave
   * with it. Without it `model` serves alone.
   */
  models?: { active(): Promise<ActiveModels> };
  /** Share of eligible searches interleaved while a candidate is under test (default ½). */
  interleaveShare?: number;
  /** Per-query learning from the event log; none when AISLE_LEARNING is off. */
  learning?: { boosts(accountId: string, normalizedQuery: string): Promise<Map<string, number>> };
  /** Signs each result's click_url. */
  clickLinks: { urlFor(impressionId: string): string };
  /** Issues each result's affiliate_attribution (its token names the impression and the product's merchant). */
  attribution: Pick<AttributionTokens, 'attribution'>;
  /** Rank multipliers from relevance feedback (docs/clicks.md). */
  feedback?: { demotions(accountId: string, query: string): Promise<Map<string, number>> };
  /** The shopper's knowledge base (docs/knowledge.md); conversations are read without it when absent or not ready. */
  knowledge?: ShopperKnowledge;
  /**
   * Another reader over the offline one (the model reader, given the offline reader as its
   * fallback: docs/search.md, "Readers"); the offline reader alone when absent.
   */
  reader?: (offline: OfflineReader) => NeedReader;
  /** Draws for interleaving (Math.random when absent). */
  random?: () => number;
  /** Told how long each stage of each search took, and how each search was answered (docs/operations.md). */
  meter?: Meter;
  /** The publisher's policy for the searching key (docs/policy.md); none applies when absent. */
  policy?: { effective(principal: Principal): Promise<ResolvedPolicy | null> };
  /** The Google product taxonomy: filters.category by id, path or word (docs/search.md, "Filters"). */
  taxonomy?: Taxonomy;
}

/**
 * POST /search (docs/search.md): PII handling, conversation context, hybrid retrieval with filters
 * pushed into both halves, calibrated scores, diversity, sort and limit; every returned result is
 * written as an impression before the response exists.
 */
export class SearchService {
  private readonly baseModel: () => RankingModel;
  private readonly lexicon: CatalogLexicon;
  private readonly vocabulary: CatalogVocabulary;
  /** The offline reader: the reader, or the model reader's fallback; its likeness signals score every conversation it reads. */
  private readonly offline: OfflineReader;
  private readonly reader: NeedReader;
  private readonly random: () => number;

  constructor(private readonly deps: SearchServiceDeps) {
    const model = deps.model ?? FALLBACK_MODEL;
    this.baseModel = typeof model === 'function' ? model : () => model;
    this.lexicon = new CatalogLexicon(deps.catalog);
    this.vocabulary = new CatalogVocabulary(deps.catalog);
    this.offline = new OfflineReader({
      embedder: deps.embedder,
      vocabulary: this.vocabulary,
      lexicon: this.lexicon,
      ...(deps.knowledge ? { knowledge: deps.knowledge } : {}),
    });
    this.reader = deps.reader?.(this.offline) ?? this.offline;
    this.random = deps.random ?? Math.random;
  }

  /**
   * Builds the catalog's vocabulary and need vocabulary, embeds the conversation examples, and
   * fills the store's product cache with each product's ranking terms, now rather than during
   * the first searches (about 2 s on 50k products).
   */
  async warm(): Promise<void> {
    await Promise.all([this.lexicon.get(), this.reader.warm(), this.deps.catalog.warm?.(productTerms)]);
  }

  /**
   * A search as a sequence of named stages (docs/search.md, "How a search runs"): `ask` (redaction,
   * session, price), `read` (the reader: what to search for, or silence), `retrieve` (both halves,
   * feedback and learning), `score` (P(need) and the session's multipliers), `order` (diversity,
   * sort, interleaving) and `respond` (recorded with its impressions before it is returned).
   *
   * `options.retrieval` isolates one half for evaluation (npm run eval): 'lexical' ranks by BM25
   * alone, 'dense' by cosine alone; the API always runs 'hybrid'.
   * `options.preview` (the console's playground) ranks exactly the same but writes nothing: no
   * search record, no impressions, no session memory, so it never reaches analytics or billing.
   * Its impression ids and click URLs point at nothing; the caller must not hand them out.
   * `options.anyCategory` (UCP's filters.categories) keeps products in any of these categories;
   * `options.priced` keeps only products with a price (UCP products must have one).
   */
  async search(principal: Principal, request: SearchRequest, options: SearchOptions = {}): Promise<SearchResponse> {
    const retrieval = options.retrieval ?? 'hybrid';
    const [{ asked, input }, policy] = await Promise.all([
      this.stage('ask', () => this.ask(principal, request, options, retrieval)),
      this.deps.policy?.effective(principal) ?? null,
    ]);
    const reading = await this.stage('read', () => this.reader.read(input));
    const filter = catalogFilter(request, asked.price, options, reading.constraints, policy, this.deps.taxonomy);
    const about: Asked = { ...asked, usedTurn: reading.usedTurn, interpreted: reading.interpreted, need: reading.need, reader: reading.reader };
    // A sensitive topic (or no need) stays the reader's silence whatever the policy; else the
    // policy may silence the turn before anything is searched.
    const silence = reading.silence ?? (policy !== null && silencedByPolicy(policy, request, asked.session) ? 'publisher_policy' : null);
    if (silence === null && toEmbeddingInput(reading.text) === '') return this.browseByPrice(principal, request, options, about, filter);

    const base = this.baseModel();
    const active = (await this.deps.models?.active()) ?? { serving: { id: null, model: base }, candidate: null };
    const serving = { rankingModel: active.serving.model.source, storedModel: active.serving.id ?? active.serving.model.source, interleavedWith: null };
    if (silence !== null)
      return this.respond(principal, request, options, { ...about, interpreted: '' }, { noFill: silence, ranked: [], totalMatches: 0, ...serving });

    const { candidates, voted, learned, likeness } = await this.stage('retrieve', () =>
      this.retrieve(principal, asked, reading, filter, retrieval, active.serving.model),
    );
    const needProbabilityOf = this.stageSync('score', () =>
      this.score(candidates, { asked, input, reading, retrieval, voted, learned, likeness, model: active.serving.model, base }),
    );
    // The publisher's floor: a request may ask for more relevance, never for less.
    const minRelevance = Math.max(request.min_relevance_score, policy?.minRelevance ?? 0);
    const qualifying = candidates.filter((c) => c.probability >= minRelevance);
    const { ranked, interleavedWith } = this.stageSync('order', () =>
      this.arrange(qualifying, request, options, { retrieval, need: reading.need, candidate: active.candidate, principal }),
    );

    const servingName = active.serving.model.source;
    // Nothing to show and no need found: say so, and claim no interpretation of what was not asked.
    const noNeed = ranked.length === 0 && needProbabilityOf !== null && needProbabilityOf < DEFAULT_MIN_RELEVANCE;
    return this.respond(
      principal,
      request,
      options,
      { ...about, interpreted: noNeed ? '' : about.interpreted },
      {
        noFill: noNeed ? 'no_shopping_need' : 'no_relevant_products',
        ranked,
        totalMatches: qualifying.length,
        rankingModel: interleavedWith !== null ? `${servingName} | ${active.candidate!.model.source} (interleaved)` : servingName,
        storedModel: serving.storedModel,
        interleavedWith,
      },
    );
  }

  /**
   * Stage `ask`: the request's texts redacted by the account's policy, the session loaded, the
   * message's price read, and the conversation before the message (the request's turns, else the
   * session's earlier searches) ready for the reader.
   */
  private async ask(
    principal: Principal,
    request: SearchRequest,
    options: SearchOptions,
    retrieval: RetrievalMode,
  ): Promise<{ asked: Omit<Asked, 'usedTurn' | 'interpreted' | 'need' | 'reader'>; input: ReadInput }> {
    const started = performance.now();
    const now = this.deps.clock.now();
    const policy = principal.piiPolicy ?? 'redact';
    const redactedTypes = new Set<PiiType>();
    const clean = (text: string, field: string) => {
      const r = applyPiiPolicy(text, policy, field);
      for (const t of r.types) redactedTypes.add(t);
      return r.text;
    };
    const query = clean(request.query, 'query');
    const context: Turn[] = (request.conversation_context ?? []).map((t, i) => ({
      role: t.role,
      content: clean(t.content, `conversation_context.${i}.content`),
    }));

    const sessionId = request.session_id ?? newId();
    const session: SessionState = (request.session_id && options.preview !== true
      ? await this.deps.store.loadSession(principal.accountId, sessionId, now, this.deps.sessionTtlMs ?? SESSION_TTL_MS)
      : null) ?? {
      queries: [],
      shownProductIds: [],
      clickedProductIds: [],
    };

    const price = extractPriceConstraint(query);
    const current = forMatching(query);
    const text = price ? current.replace(price.phrase, ' ') : current;
    // A query that was only personal data (or only placeholders) is the caller's mistake, whatever
    // the conversation; a price alone ("under $50") follows the conversation, else the price.
    if (price === null && toEmbeddingInput(text) === '') throw nothingToSearchFor(redactedTypes);
    const earlierTurns = context.map((t) => ({ ...t, content: withoutPrice(forMatching(t.content)) }));
    const earlierQueries = session.queries.map((q) => withoutPrice(forMatching(q)));
    // The conversation before this message: the request's turns, else the session's earlier searches.
    // A turn that repeats this message (a page of the same search, a resent query) adds nothing.
    const repeats = (t: Turn, asSaid: string) => t.content.trim() === asSaid.trim();
    const useTurns = earlierTurns.length > 0;
    const before: Turn[] = (useTurns ? earlierTurns : earlierQueries.map((content) => ({ role: 'user' as const, content }))).filter((t) => !repeats(t, text));
    const said: Turn[] = (useTurns ? context : session.queries.map((content) => ({ role: 'user' as const, content }))).filter((t) => !repeats(t, query));
    return {
      asked: { started, now, sessionId, session, query, normalizedQuery: normalizeQuery(query), price, redactedTypes },
      input: { message: query, current, text, before, said, earlierTurns, earlierQueries, retrieval },
    };
  }

  /** Nothing but a price to go on: the catalog's products within it, by price (docs/search.md). */
  private async browseByPrice(
    principal: Principal,
    request: SearchRequest,
    options: SearchOptions,
    about: Asked,
    filter: CatalogFilter,
  ): Promise<SearchResponse> {
    const browsed = await this.deps.catalog.byPrice(filter, { limit: request.limit, descending: request.sort === 'price_desc' });
    const ranked = browsed.products.map((product) => ({ c: priceOrderCandidate(product) }));
    return this.respond(principal, request, options, about, {
      noFill: 'no_relevant_products',
      ranked,
      totalMatches: browsed.total,
      rankingModel: PRICE_ORDER,
      storedModel: PRICE_ORDER,
      interleavedWith: null,
    });
  }

  /**
   * Stage `retrieve`: the candidates of both halves, with the feedback votes, what earlier searches
   * of this query taught and a conversation's likeness to chat, looked up while the retrievals run.
   */
  private async retrieve(
    principal: Principal,
    asked: { query: string; normalizedQuery: string },
    reading: Reading,
    filter: CatalogFilter,
    retrieval: RetrievalMode,
    model: RankingModel,
  ): Promise<{ candidates: Candidate[]; voted?: Map<string, number>; learned?: Map<string, number>; likeness: { chatter: number; shopping: number } }> {
    const { need, vectors } = reading;
    const [candidates, voted, learned, likeness] = await Promise.all([
      retrieveCandidates(
        { ...this.deps, lexicon: this.lexicon },
        {
          queryText: reading.text,
          contextText: reading.context,
          currentQuery: reading.current,
          ...(need !== null ? { need } : {}),
          ...(vectors !== null ? { queryVector: vectors.query } : {}),
          filter,
          retrieval,
          model,
        },
      ),
      this.deps.feedback?.demotions(principal.accountId, asked.query),
      // Test data teaches nothing (docs/commerce.md, "Test mode"): no learned boosts for test searches.
      retrieval === 'hybrid' && principal.livemode !== false ? this.deps.learning?.boosts(principal.accountId, asked.normalizedQuery) : undefined,
      vectors !== null ? this.offline.likeness(vectors) : { chatter: 0, shopping: 0 },
    ]);
    return { candidates, ...(voted ? { voted } : {}), ...(learned ? { learned } : {}), likeness };
  }

  /**
   * Stage `score`: a conversation's scores become P(need) · P(relevant | need), each calibrated on
   * conversations; then the session, feedback and learning multipliers. Returns P(need), or null
   * for a product query.
   */
  private score(candidates: Candidate[], s: Scoring): number | null {
    const { asked, input, reading, retrieval } = s;
    let needProbabilityOf: number | null = null;
    if (reading.need !== null) {
      const model = s.model.conversation ?? s.base.conversation ?? DEFAULT_CONVERSATION_MODEL;
      const byProbability = [...candidates].sort((a, b) => b.probability - a.probability);
      const userTexts = [input.text, ...input.before.filter((t) => t.role === 'user').map((t) => t.content)];
      needProbabilityOf = needProbability(model, needSignals(reading.need, input.text, userTexts, byProbability, s.likeness));
      // A close match to a shopper's need is evidence of one ("keep my phone charged with no outlets").
      if (reading.known !== null && reading.known.score >= STRONG_KNOWLEDGE) needProbabilityOf = Math.max(needProbabilityOf, KNOWN_NEED_PROBABILITY);
      for (const c of candidates) {
        c.probability *= needProbabilityOf;
        c.rankScore = c.probability;
      }
    }
    if (retrieval !== 'hybrid') for (const c of candidates) c.rankScore = retrieval === 'lexical' ? c.features[FEATURE_BM25]! : c.cosine;
    // Shown products are demoted; shown products the person clicked count as interest instead.
    const clicked = new Set(asked.session.clickedProductIds);
    const shown = new Set(asked.session.shownProductIds.filter((id) => !clicked.has(id)));
    for (const c of candidates) if (shown.has(c.product.productId)) c.rankScore *= SHOWN_DEMOTION;
    // Feedback: products voted not relevant for this or a near-identical query rank lower (bounded).
    if (s.voted) for (const c of candidates) c.rankScore *= s.voted.get(c.product.productId) ?? 1;
    // Learning: products this query's earlier users chose more (or less) than their positions predict (bounded).
    if (s.learned) for (const c of candidates) c.rankScore *= s.learned.get(c.product.productId) ?? 1;
    return needProbabilityOf;
  }

  /**
   * Stage `order`: diversified, sorted and cut to the limit; or, while a candidate model is under
   * test, a product query's results interleaved from the serving and the candidate rankings.
   */
  private arrange(
    qualifying: Candidate[],
    request: SearchRequest,
    options: SearchOptions,
    s: { retrieval: RetrievalMode; need: Need | null; candidate: ActiveModels['candidate']; principal: Principal },
  ): { ranked: { c: Candidate; team?: Team | null }[]; interleavedWith: string | null } {
    const { candidate } = s;
    const interleave =
      candidate !== null &&
      s.need === null &&
      s.retrieval === 'hybrid' &&
      options.preview !== true &&
      s.principal.livemode !== false &&
      request.sort === 'relevance' &&
      this.random() < (this.deps.interleaveShare ?? 0.5);
    if (!interleave)
      return {
        ranked: this.order(qualifying, request.sort, request.limit)
          .slice(0, request.limit)
          .map((c) => ({ c })),
        interleavedWith: null,
      };
    // The candidate's view is taken before the serving order, whose diversification changes rank scores.
    const byCandidate = rescored(qualifying, candidate.model);
    const byServing = this.order(qualifying, 'relevance', request.limit);
    const ranked = teamDraft(byServing, this.order(byCandidate, 'relevance', request.limit), request.limit, (c) => c.product.productId, this.random).map(
      ({ item, team }) => ({ c: item, team }),
    );
    return { ranked, interleavedWith: candidate.id };
  }
  /** Runs one stage of a search in a span of its own (`search.<stage>`), timed for the meter. */
  private stage<T>(name: SearchStage, run: () => Promise<T>): Promise<T> {
    return inSpan(`search.${name}`, {}, async () => {
      const started = performance.now();
      try {
        return await run();
      } finally {
        this.deps.meter?.searchStage(name, (performance.now() - started) / 1000);
      }
    });
  }

  private stageSync<T>(name: SearchStage, run: () => T): T {
    return inSpanSync(`search.${name}`, {}, () => {
      const started = performance.now();
      try {
        return run();
      } finally {
        this.deps.meter?.searchStage(name, (performance.now() - started) / 1000);
      }
    });
  }

  /** Stage `respond`: the ranked results as the answer, each an impression, written with the search before the response exists (unless a preview). */
  private async respond(principal: Principal, request: SearchRequest, options: { preview?: boolean }, about: Asked, outcome: Ranked): Promise<SearchResponse> {
    const answer = await this.stage('respond', () => this.record(principal, request, options, about, outcome));
    this.deps.meter?.searchAnswered(about.reader, answer.metadata.no_fill_reason ?? 'results');
    return answer;
  }

  private async record(principal: Principal, request: SearchRequest, options: { preview?: boolean }, about: Asked, outcome: Ranked): Promise<SearchResponse> {
    const { started, now, sessionId, session, query, normalizedQuery, price, usedTurn, redactedTypes, interpreted } = about;
    const { ranked, interleavedWith } = outcome;
    const requestId = newId();
    const results: AdResponse[] = ranked.map(({ c }) => toAdResponse(this.deps, c, request, price ?? {}, usedTurn, about.need, principal.accountId, now));
    const writing = performance.now();
    const tookMs = Math.round((writing - started) * 100) / 100;
    if (options.preview !== true) {
      await this.deps.store.recordSearch({
        requestId,
        accountId: principal.accountId,
        keyId: principal.keyId,
        sessionId,
        query,
        normalizedQuery,
        filters: { ...(request.filters ?? {}), ...(price ? { implied_price: { min: price.minPrice, max: price.maxPrice } } : {}) },
        totalMatches: outcome.totalMatches,
        tookMs,
        createdAt: now,
        impressions: results.map((r, i) => ({
          impressionId: r.impression_id,
          productId: r.product_id,
          position: i + 1,
          categoryId: ranked[i]!.c.product.taxonomy?.categoryId ?? null,
          features: ranked[i]!.c.features,
          ...(interleavedWith !== null ? { team: ranked[i]!.team ?? null } : {}),
        })),
        rankingModel: outcome.storedModel,
        ...(interleavedWith !== null ? { interleavedWith } : {}),
        session: {
          queries: [...session.queries, query].slice(-SESSION_MEMORY.queries),
          shownProductIds: [...session.shownProductIds.filter((id) => !results.some((r) => r.product_id === id)), ...results.map((r) => r.product_id)].slice(
            -SESSION_MEMORY.shown,
          ),
          clickedProductIds: session.clickedProductIds.slice(-SESSION_MEMORY.clicked),
          productAnswers: (session.productAnswers ?? 0) + (results.length > 0 ? 1 : 0),
        },
      });
      this.deps.meter?.eventWritten('search', (performance.now() - writing) / 1000);
    }
    return {
      request_id: requestId,
      livemode: principal.livemode !== false,
      results,
      metadata: {
        total_matches: outcome.totalMatches,
        session_id: sessionId,
        took_ms: tookMs,
        pii_redacted: [...redactedTypes],
        model: this.deps.embedder.model,
        ranking_model: outcome.rankingModel,
        interpreted_query: interpreted,
        reader: about.reader,
        no_fill_reason: results.length > 0 ? null : outcome.noFill,
      },
    };
  }

  /**
   * The console's playground: ranked exactly as search() ranks, but nothing is written (no search
   * record, impressions, session memory or search event), so nothing reaches analytics or billing,
   * and the results carry no tracking (no impression id, no click link) that could be counted.
   */
  async preview(principal: Principal, request: PlaygroundRequest): Promise<PlaygroundResponse> {
    const r = await this.search(principal, { ...request, stream: false }, { preview: true });
    const { total_matches, took_ms, pii_redacted, model, ranking_model, no_fill_reason } = r.metadata;
    return {
      results: r.results.map(({ impression_id: _i, click_url: _c, affiliate_attribution: _a, ...rest }) => rest),
      metadata: { total_matches, took_ms, pii_redacted, model, ranking_model, no_fill_reason, recorded: false },
    };
  }

  private order(candidates: Candidate[], sort: SearchRequest['sort'], limit: number): Candidate[] {
    const byScore = diversify(
      [...candidates].sort((a, b) => b.rankScore - a.rankScore),
      limit,
    );
    if (sort === 'relevance') return byScore;
    const dir = sort === 'price_asc' ? 1 : -1;
    // Products without a price go last; ties keep relevance order (stable sort).
    return byScore.sort((a, b) => {
      const pa = a.product.priceAmount;
      const pb = b.product.priceAmount;
      if (pa === null || pb === null) return pa === pb ? 0 : pa === null ? 1 : -1;
      return (pa - pb) * dir;
    });
  }
}

/**
 * The candidates as another model ranks them: its calibrated score times the same session,
 * feedback and learning multipliers. Each is a view of the original (prototype), so the two
 * rankings can be diversified and ordered independently.
 */
function rescored(candidates: readonly Candidate[], model: RankingModel): Candidate[] {
  const w = weightVector(model);
  return candidates.map((c) => {
    const view = Object.create(c) as Candidate;
    const multiplier = c.probability > 0 ? c.rankScore / c.probability : 1;
    view.rankScore = toProbability(scoreRow(c.features, model.bias, w), model) * multiplier;
    return view;
  });
}

/** How a search runs beyond what its request says (see search()). */
export interface SearchOptions {
  retrieval?: RetrievalMode;
  preview?: boolean;
  anyCategory?: readonly string[];
  priced?: boolean;
}

/** What a search was asked, as respond() records it. */
interface Asked {
  started: number;
  now: Date;
  sessionId: string;
  session: SessionState;
  query: string;
  normalizedQuery: string;
  price: PriceConstraint | null;
  usedTurn: string | null;
  redactedTypes: ReadonlySet<PiiType>;
  /** metadata.interpreted_query. */
  interpreted: string;
  /** A conversation's need (null for a product query): the explanations name its words and turns. */
  need: Need | null;
  /** metadata.reader. */
  reader: ReaderName;
}

/** What the `score` stage weighs. */
interface Scoring {
  asked: { session: SessionState };
  input: ReadInput;
  reading: Reading;
  retrieval: RetrievalMode;
  voted?: Map<string, number>;
  learned?: Map<string, number>;
  likeness: { chatter: number; shopping: number };
  /** The serving model and the catalog's own (whose conversation model serves when the serving one has none). */
  model: RankingModel;
  base: RankingModel;
}

/** The ranked results and how they were ranked. */
interface Ranked {
  /** metadata.no_fill_reason when `ranked` is empty. */
  noFill: NoFillReason;
  ranked: { c: Candidate; team?: Team | null }[];
  totalMatches: number;
  /** metadata.ranking_model. */
  rankingModel: string;
  /** What the search record names as its model (the learned model's id where one serves). */
  storedModel: string;
  /** The candidate model interleaved with the serving one, or null. */
  interleavedWith: string | null;
}

/** Redaction placeholders ([EMAIL]) are not things to match products on. */
const forMatching = (text: string) => text.replace(/\[(?:EMAIL|PHONE|CARD|SSN|IBAN|IP)\]/g, ' ');

/** An earlier turn's price phrase is not something to match products on either. */
const withoutPrice = (text: string) => {
  const price = extractPriceConstraint(text);
  return price ? text.replace(price.phrase, ' ') : text;
};

function nothingToSearchFor(redacted: ReadonlySet<PiiType>): AppError {
  const message =
    redacted.size > 0
      ? `holds nothing but personal data (${[...redacted].join(', ')}), which is removed before searching; send what the person is looking for`
      : 'holds nothing to search for once redaction placeholders are removed; send what the person is looking for';
  return new AppError('validation_failed', `The query ${message}.`, { errors: [{ path: 'query', message }] });
}
