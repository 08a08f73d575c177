import { toEmbeddingInput } from '../catalog/embedding-text.js';
import type { CatalogFilter, CatalogStore } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import type { AttributionTokens } from '../clicks/attribution.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { KnowledgeMatch } from '../knowledge/matcher.js';
import type { ShopperKnowledge } from '../knowledge/ports.js';
import { type Team, teamDraft } from '../learning/interleaving.js';
import type { ActiveModels } from '../learning/ranking-learner.js';
import { applyPiiPolicy, type PiiType } from '../pii/pii.js';
import { productTerms } from '../ranking/features.js';
import { CatalogLexicon } from '../ranking/lexical.js';
import { contextualQuery, extractPriceConstraint, type PriceConstraint } from '../ranking/query-text.js';
import { type Candidate, diversify, FALLBACK_MODEL, FEATURE_BM25, type RankingModel, scoreRow, toProbability, weightVector } from '../ranking/ranking.js';
import { type RetrievalMode, retrieveCandidates } from '../ranking/retrieval.js';
import type { PlaygroundRequest, PlaygroundResponse } from '../schemas/console.js';
import { type AdResponse, DEFAULT_MIN_RELEVANCE, type NoFillReason, type SearchRequest, type SearchResponse } from '../schemas/search.js';
import type { Embedder, Principal } from '../shared-ports.js';
import { ConversationReader, needSignals } from '../understanding/conversation.js';
import { DEFAULT_CONVERSATION_MODEL, needProbability } from '../understanding/conversation-model.js';
import { isProductQuery, type Need, type Turn, understandNeed } from '../understanding/need.js';
import { CatalogVocabulary } from '../understanding/vocabulary.js';
import { explain } from './explain.js';
import { readWithKnowledge } from './knowledge-stage.js';
import type { SearchStore, SessionState } from './ports.js';

/** How long a session lives after its last use, unless configured (AISLE_SESSION_TTL_HOURS). */
export const SESSION_TTL_MS = 24 * 3600 * 1000;

/** The query as stored and as learning matches it: lower case, whitespace collapsed. */
const normalizeQuery = (query: string): string => query.toLowerCase().replace(/\s+/g, ' ').trim();

/** Earlier turns read for a sensitive topic, the latest (each up to 4,000 characters). */
const SENSITIVE_TURNS = 8;

/** Words of a conversation the catalog has never seen that get a spelling scan, per search (docs/search.md, "Bounds on one request's work"). */
const MAX_NEED_CORRECTIONS = 16;

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
}

const formatPrice = (amount: number | null, currency: string | null): string => {
  if (amount === null) return '';
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency ?? 'USD' }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency ?? ''}`.trim();
  }
};

/**
 * POST /search (docs/search.md): PII handling, conversation context, hybrid retrieval with filters
 * pushed into both halves, calibrated scores, diversity, sort and limit; every returned result is
 * written as an impression before the response exists.
 */
export class SearchService {
  private readonly baseModel: () => RankingModel;
  private readonly lexicon: CatalogLexicon;
  private readonly vocabulary: CatalogVocabulary;
  private readonly reader: ConversationReader;

  constructor(private readonly deps: SearchServiceDeps) {
    const model = deps.model ?? FALLBACK_MODEL;
    this.baseModel = typeof model === 'function' ? model : () => model;
    this.lexicon = new CatalogLexicon(deps.catalog);
    this.vocabulary = new CatalogVocabulary(deps.catalog);
    this.reader = new ConversationReader(deps.embedder);
  }

  /**
   * Builds the catalog's vocabulary and need vocabulary, embeds the conversation examples, and
   * fills the store's product cache with each product's ranking terms, now rather than during
   * the first searches (about 2 s on 50k products).
   */
  async warm(): Promise<void> {
    // The examples are best-effort here: an embedding service that is down at start must not stop
    // the server (a conversation's search embeds them again, and fails as any search would then).
    await Promise.all([this.lexicon.get(), this.vocabulary.get(), this.reader.warm().catch(() => undefined), this.deps.catalog.warm?.(productTerms)]);
  }

  /**
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
    const currentQuery = forMatching(query);
    const queryText = price ? currentQuery.replace(price.phrase, ' ') : currentQuery;
    const earlierTurns = context.map((t) => ({ ...t, content: withoutPrice(forMatching(t.content)) }));
    const earlierQueries = session.queries.map((q) => withoutPrice(forMatching(q)));
    // The conversation before this message: the request's turns, else the session's earlier searches.
    // A turn that repeats this message (a page of the same search, a resent query) adds nothing.
    const before: Turn[] = (earlierTurns.length > 0 ? earlierTurns : earlierQueries.map((content) => ({ role: 'user' as const, content }))).filter(
      (t) => t.content.trim() !== queryText.trim(),
    );
    let need = isProductQuery(queryText, before) ? null : await this.understand(queryText, before);
    const {
      text: matchText,
      added: contextText,
      usedTurn,
    } = need !== null ? { text: need.spoken.join(' '), added: '', usedTurn: null } : contextualQuery(queryText, earlierTurns, earlierQueries);
    const filter = this.catalogFilter(request, price, options);
    const normalizedQuery = normalizeQuery(query);
    // A query that was only personal data (or only placeholders) is the caller's mistake, whatever
    // the conversation; a price alone ("under $50") follows the conversation, else the price.
    if (price === null && toEmbeddingInput(queryText) === '') throw nothingToSearchFor(redactedTypes);
    if (toEmbeddingInput(matchText) === '') {
      const browsed = await this.deps.catalog.byPrice(filter, { limit: request.limit, descending: request.sort === 'price_desc' });
      const ranked = browsed.products.map((product) => ({ c: priceOrderCandidate(product) }));
      return this.respond(
        principal,
        request,
        options,
        { started, now, sessionId, session, query, normalizedQuery, price, usedTurn, redactedTypes, interpreted: need?.interpreted ?? matchText.trim(), need },
        {
          noFill: 'no_relevant_products',
          ranked,
          totalMatches: browsed.total,
          rankingModel: PRICE_ORDER,
          storedModel: PRICE_ORDER,
          interleavedWith: null,
        },
      );
    }

    const base = this.baseModel();
    const active = (await this.deps.models?.active()) ?? { serving: { id: null, model: base }, candidate: null };
    const asked = {
      started,
      now,
      sessionId,
      session,
      query,
      normalizedQuery,
      price,
      usedTurn,
      redactedTypes,
      interpreted: need?.interpreted ?? matchText.trim(),
      need,
    };
    // A conversation is embedded here, with its last turns, which say whether it touches a
    // sensitive topic: then nothing is searched at all (docs/search.md, "Sensitive topics").
    let vectors = need !== null && retrieval !== 'lexical' ? await this.reader.embed(need) : null;
    if (need !== null && vectors !== null) {
      // What is being talked about now: the message and the latest turns before it (the request's,
      // else the session's earlier searches, as the need reads them).
      const topic = await this.reader.sensitive([query, ...before.slice(-SENSITIVE_TURNS).map((t) => t.content)], vectors);
      if (topic !== null)
        return this.respond(
          principal,
          request,
          options,
          { ...asked, interpreted: '' },
          {
            noFill: 'sensitive_topic',
            ranked: [],
            totalMatches: 0,
            rankingModel: active.serving.model.source,
            storedModel: active.serving.id ?? active.serving.model.source,
            interleavedWith: null,
          },
        );
    }
    // A kind of product the person describes without naming it, from the shopper's knowledge base.
    const matcher = need !== null && vectors !== null && !need.named ? this.deps.knowledge?.matcher() : undefined;
    let known: KnowledgeMatch | null = null;
    if (matcher && need !== null && vectors !== null) {
      ({ need, vectors, known } = readWithKnowledge(need, vectors, matcher, await this.vocabulary.get()));
      Object.assign(asked, { need, interpreted: need.interpreted });
    }
    // Feedback votes and what earlier searches of this query taught are looked up while the
    // retrievals run, not after them.
    const [candidates, voted, learned, chatter] = await Promise.all([
      retrieveCandidates(
        { ...this.deps, lexicon: this.lexicon },
        {
          queryText,
          contextText,
          currentQuery,
          ...(need !== null ? { need } : {}),
          ...(vectors !== null ? { queryVector: vectors.query } : {}),
          filter,
          retrieval,
          model: active.serving.model,
        },
      ),
      this.deps.feedback?.demotions(principal.accountId, query),
      // Test data teaches nothing (docs/commerce.md, "Test mode"): no learned boosts for test searches.
      retrieval === 'hybrid' && principal.livemode !== false ? this.deps.learning?.boosts(principal.accountId, normalizedQuery) : undefined,
      vectors !== null ? this.reader.chatterSimilarity(vectors) : { chatter: 0, shopping: 0 },
    ]);
    // A conversation's scores: P(need) · P(relevant | need), each calibrated on conversations.
    let needProbabilityOf: number | null = null;
    if (need !== null) {
      const model = active.serving.model.conversation ?? base.conversation ?? DEFAULT_CONVERSATION_MODEL;
      const byProbability = [...candidates].sort((a, b) => b.probability - a.probability);
      const userTexts = [queryText, ...before.filter((t) => t.role === 'user').map((t) => t.content)];
      needProbabilityOf = needProbability(model, needSignals(need, queryText, userTexts, byProbability, chatter));
      // A close match to a shopper's need is evidence of one ("keep my phone charged with no outlets").
      if (known !== null && known.score >= STRONG_KNOWLEDGE) needProbabilityOf = Math.max(needProbabilityOf, KNOWN_NEED_PROBABILITY);
      for (const c of candidates) {
        c.probability *= needProbabilityOf;
        c.rankScore = c.probability;
      }
    }
    if (retrieval !== 'hybrid') for (const c of candidates) c.rankScore = retrieval === 'lexical' ? c.features[FEATURE_BM25]! : c.cosine;
    // Shown products are demoted; shown products the person clicked count as interest instead.
    const clicked = new Set(session.clickedProductIds);
    const shown = new Set(session.shownProductIds.filter((id) => !clicked.has(id)));
    for (const c of candidates) if (shown.has(c.product.productId)) c.rankScore *= SHOWN_DEMOTION;
    // Feedback: products voted not relevant for this or a near-identical query rank lower (bounded).
    if (voted) for (const c of candidates) c.rankScore *= voted.get(c.product.productId) ?? 1;
    // Learning: products this query's earlier users chose more (or less) than their positions predict (bounded).
    if (learned) for (const c of candidates) c.rankScore *= learned.get(c.product.productId) ?? 1;

    const qualifying = candidates.filter((c) => c.probability >= request.min_relevance_score);
    const candidate = active.candidate;
    const interleave =
      candidate !== null &&
      need === null &&
      retrieval === 'hybrid' &&
      options.preview !== true &&
      principal.livemode !== false &&
      request.sort === 'relevance' &&
      Math.random() < (this.deps.interleaveShare ?? 0.5);
    let ranked: { c: Candidate; team?: Team | null }[];
    if (interleave) {
      // The candidate's view is taken before the serving order, whose diversification changes rank scores.
      const byCandidate = rescored(qualifying, candidate.model);
      const byServing = this.order(qualifying, 'relevance', request.limit);
      ranked = teamDraft(byServing, this.order(byCandidate, 'relevance', request.limit), request.limit, (c) => c.product.productId, Math.random).map(
        ({ item, team }) => ({ c: item, team }),
      );
    } else {
      ranked = this.order(qualifying, request.sort, request.limit)
        .slice(0, request.limit)
        .map((c) => ({ c }));
    }

    const servingName = active.serving.model.source;
    // Nothing to show and no need found: say so, and claim no interpretation of what was not asked.
    const noNeed = ranked.length === 0 && needProbabilityOf !== null && needProbabilityOf < DEFAULT_MIN_RELEVANCE;
    return this.respond(
      principal,
      request,
      options,
      { ...asked, interpreted: noNeed ? '' : asked.interpreted },
      {
        noFill: noNeed ? 'no_shopping_need' : 'no_relevant_products',
        ranked,
        totalMatches: qualifying.length,
        rankingModel: interleave ? `${servingName} | ${candidate.model.source} (interleaved)` : servingName,
        storedModel: active.serving.id ?? servingName,
        interleavedWith: interleave ? candidate.id : null,
      },
    );
  }

  /** A conversation's need, words the catalog does not know corrected against its vocabulary (bounded as a query's are). */
  private async understand(query: string, before: readonly Turn[]): Promise<Need> {
    const [vocabulary, lexicon] = await Promise.all([this.vocabulary.get(), this.lexicon.get()]);
    const budget = { scans: MAX_NEED_CORRECTIONS };
    const correct = (word: string) => {
      const fixed = lexicon.correct([word], budget).words;
      return fixed.length === 1 && fixed[0] === word ? null : fixed;
    };
    return understandNeed(query, before, { vocabulary, correct });
  }

  /** The ranked results as the answer: each an impression, written with the search before the response exists (unless a preview). */
  private async respond(principal: Principal, request: SearchRequest, options: { preview?: boolean }, about: Asked, outcome: Ranked): Promise<SearchResponse> {
    const { started, now, sessionId, session, query, normalizedQuery, price, usedTurn, redactedTypes, interpreted } = about;
    const { ranked, interleavedWith } = outcome;
    const requestId = newId();
    const results: AdResponse[] = ranked.map(({ c }) => this.toAdResponse(c, request, price ?? {}, usedTurn, about.need, principal.accountId, now));
    const tookMs = Math.round((performance.now() - started) * 100) / 100;
    if (options.preview !== true)
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
        },
      });
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
    const { total_matches, took_ms, pii_redacted, model, ranking_model } = r.metadata;
    return {
      results: r.results.map(({ impression_id: _i, click_url: _c, affiliate_attribution: _a, ...rest }) => rest),
      metadata: { total_matches, took_ms, pii_redacted, model, ranking_model, recorded: false },
    };
  }

  private catalogFilter(request: SearchRequest, price: { minPrice?: number; maxPrice?: number } | null, options: SearchOptions): CatalogFilter {
    const f = request.filters ?? {};
    // Words in the query narrow the price; explicit filters win where both speak. A lower bound of
    // 0 is what "has a price" comes to in the store.
    const minPrice = f.min_price ?? price?.minPrice ?? (options.priced ? 0 : undefined);
    const maxPrice = f.max_price ?? price?.maxPrice;
    return {
      ...(minPrice !== undefined ? { minPrice } : {}),
      ...(maxPrice !== undefined ? { maxPrice } : {}),
      ...(f.merchant ? { merchant: f.merchant } : {}),
      ...(f.brand ? { brand: f.brand } : {}),
      ...(f.category ? { category: f.category } : {}),
      ...(options.anyCategory?.length ? { anyCategory: options.anyCategory } : {}),
      ...(f.keyword_filter ? { keywords: f.keyword_filter.split(/\s+/).filter(Boolean) } : {}),
      ...(request.exclude_product_ids?.length ? { excludeProductIds: request.exclude_product_ids } : {}),
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

  private toAdResponse(
    c: Candidate,
    request: SearchRequest,
    implied: { minPrice?: number; maxPrice?: number },
    usedTurn: string | null,
    need: Need | null,
    accountId: string,
    now: Date,
  ): AdResponse {
    const p = c.product;
    const impressionId = newId();
    return {
      product_id: p.productId,
      impression_id: impressionId,
      click_url: this.deps.clickLinks.urlFor(impressionId),
      title: p.title,
      description: p.description,
      url: p.url ?? '',
      price: formatPrice(p.priceAmount, p.currency),
      price_amount: p.priceAmount,
      currency: p.currency,
      merchant: p.merchant ?? '',
      brand: p.brand ?? '',
      category: p.category.join(' > '),
      availability: p.availability,
      relevance_score: Math.round(c.probability * 10_000) / 10_000,
      relevance_explanation: explain(c, request.filters, implied, usedTurn, need),
      image_url: p.imageUrl ?? '',
      disclosure_text: p.disclosureText ?? DEFAULT_DISCLOSURE,
      last_updated_at: p.lastUpdatedAt?.toISOString() ?? null,
      external_id: p.externalId,
      affiliate_attribution: this.deps.attribution.attribution({ impressionId, accountId, merchant: p.merchant, issuedAt: now }),
    };
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

/** The ranking of a search with nothing but a price to go on: by price (docs/search.md). */
const PRICE_ORDER = 'price-order';

/**
 * A product of a price-only search as a result: no ranking features (nothing was matched, and
 * global learning leaves such impressions out), relevance 1 because it satisfies everything the
 * request asks, which is the price.
 */
const priceOrderCandidate = (product: CatalogProduct): Candidate => ({
  product,
  features: [],
  cosine: 0,
  matchedTerms: [],
  score: 0,
  probability: 1,
  rankScore: 1,
});

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

/** Shown when a feed carries no disclosure of its own: the spec requires one on every result. */
export const DEFAULT_DISCLOSURE = 'Aisle may earn a commission if you buy through this link.';
