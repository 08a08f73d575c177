/**
 * Fits a catalog's shopping-need decision (conversation-model.ts) at import, from the catalog
 * alone: synthetic shopping conversations (synthetic-conversations.ts) and chat that asks for
 * nothing (chatter.ts) go through the path search takes, and a logistic regression of their need
 * signals tells one from the other. Each chatter example's likeness to chatter leaves itself
 * out. Measurements: docs/relevance.md, "Conversations".
 */
import PQueue from 'p-queue';
import type { CatalogStore } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import { mulberry32 } from '../random.js';
import type { CatalogLexicon } from '../ranking/lexical.js';
import type { RankingModel } from '../ranking/ranking.js';
import { fitLogistic } from '../ranking/ranking-fit.js';
import { retrieveCandidates } from '../ranking/retrieval.js';
import type { Embedder } from '../shared-ports.js';
import { CHATTER } from './chatter.js';
import { ConversationReader, needSignals } from './conversation.js';
import { type ConversationModel, NEED_FEATURES, type NeedFeature, needVector } from './conversation-model.js';
import { type Turn, understandNeed } from './need.js';
import { syntheticConversations } from './synthetic-conversations.js';
import type { NeedVocabulary } from './vocabulary.js';

export interface ConversationFitOptions {
  /** Synthetic conversations (one per sampled product). */
  conversations: number;
  /** Chatter examples used as negatives (of CHATTER's), at most; fewer for a catalog that gives few conversations. */
  negatives: number;
  seed: number;
  concurrency: number;
}

const CONVERSATION_FIT_DEFAULTS: ConversationFitOptions = { conversations: 500, negatives: 600, seed: 20_261_128, concurrency: 4 };

export interface ConversationFit {
  model: ConversationModel;
  conversations: number;
  negatives: number;
  ms: number;
}

type Deps = { catalog: CatalogStore; embedder: Embedder; lexicon: CatalogLexicon };

interface Seen {
  signals: Record<NeedFeature, number>;
}

/** Chatter examples a small catalog's fit reads at least. */
const MIN_NEGATIVES = 200;

/** Fewer conversations or chatter examples than this that reach the need path, and the fit would be noise. */
const MIN_EACH = 20;

export async function fitConversationModel(
  deps: Deps,
  products: readonly CatalogProduct[],
  vocabulary: NeedVocabulary,
  rankingModel: RankingModel,
  options: Partial<ConversationFitOptions> = {},
): Promise<ConversationFit | null> {
  const started = performance.now();
  const o = { ...CONVERSATION_FIT_DEFAULTS, ...options };
  const reader = new ConversationReader(deps.embedder);
  const queue = new PQueue({ concurrency: Math.max(1, o.concurrency) });
  const search = (query: string, context: readonly Turn[], chatterIndex = -1): Promise<Seen | null> =>
    queue.add(async () => {
      const need = understandNeed(query, context, { vocabulary });
      if (need.kind !== 'conversation') return null;
      const vectors = await reader.embed(need);
      const [candidates, chatter] = await Promise.all([
        retrieveCandidates(deps, {
          queryText: query,
          currentQuery: query,
          need,
          queryVector: vectors.query,
          filter: {},
          retrieval: 'hybrid',
          model: rankingModel,
        }),
        reader.chatterSimilarity(vectors, chatterIndex),
      ]);
      const ranked = [...candidates].sort((a, b) => b.probability - a.probability);
      const userTexts = [query, ...context.filter((t) => t.role === 'user').map((t) => t.content)];
      return { signals: needSignals(need, query, userTexts, ranked, chatter) };
    }) as Promise<Seen | null>;

  const synthetic = syntheticConversations(products, vocabulary, { count: o.conversations, seed: o.seed });
  const positives = (await Promise.all(synthetic.map((s) => search(s.query, s.context)))).filter((p): p is Seen => p !== null);
  const random = mulberry32(o.seed);
  const picked = CHATTER.map((text, index) => ({ text, index, r: random() }))
    .sort((a, b) => a.r - b.r)
    // Twice as many as the catalog gave conversations (a small catalog gives few), at least 200.
    .slice(0, Math.min(o.negatives, Math.max(MIN_NEGATIVES, 2 * positives.length)));
  const negatives = (
    await Promise.all(
      picked.map(({ text, index }, k) => {
        // A third of them follow another chat message, as a conversation's second turn.
        const before: Turn[] = k % 3 === 0 ? [{ role: 'user', content: picked[(k + 1) % picked.length]!.text }] : [];
        return search(text, before, index);
      }),
    )
  ).filter((n): n is Seen => n !== null);

  if (positives.length < MIN_EACH || negatives.length < MIN_EACH) return null;
  const X = [...positives.map((p) => needVector(p.signals)), ...negatives.map((n) => needVector(n.signals))];
  const y = [...positives.map(() => 1), ...negatives.map(() => 0)];
  const [bias, ...weights] = fitLogistic(X, y, 1e-2);
  return {
    model: { need: { bias: round(bias!), weights: Object.fromEntries(NEED_FEATURES.map((n, i) => [n, round(weights[i]!)])) as Record<NeedFeature, number> } },
    conversations: positives.length,
    negatives: negatives.length,
    ms: Math.round(performance.now() - started),
  };
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;
