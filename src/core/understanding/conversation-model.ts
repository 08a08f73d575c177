/**
 * How a conversation's results are scored: two decisions (docs/search.md, "Conversations").
 * - Is there a shopping need at all? P(need) = σ(bias + Σ wᵢ·xᵢ) over signals of the whole
 *   conversation (NEED_FEATURES): how well the catalog answers it, how much it sounds like chat
 *   that asks for nothing, whether someone says they want something. An import fits it from the
 *   catalog (conversation-fit.ts); DEFAULT_CONVERSATION_MODEL serves until then.
 * - How relevant is each product, given the need? The ranking model's calibrated probability,
 *   computed on the conversation's need words (need.ts) as on a product query's words.
 * relevance_score = P(need) · P(relevant | need).
 */

export const NEED_FEATURES = [
  /** P(relevant | need) of the best candidate. */
  'bestProbability',
  /** Mean P(relevant | need) of the best three. */
  'topProbability',
  /** Cosine of the best candidate to the conversation's embedding. */
  'bestCosine',
  /** Cosine of the conversation to the nearest chat that asks for nothing (chatter.ts). */
  'chatter',
  /** Cosine of the conversation to the nearest way of asking for something to buy (shopping-talk.ts). */
  'shoppingTalk',
  /** How much of the conversation the catalog's product words carry (need.ts), up to 3. */
  'mass',
  /** 1 when a verb of wanting governs a noun phrase ("I need [a capo]"). */
  'wanted',
  /** Words of shopping (buy, gift, recommend, budget …), up to 3. */
  'shopping',
  /** 1 when the last message asks for a fact or a piece of writing ("who wrote …", "explain …"). */
  'question',
] as const;

export type NeedFeature = (typeof NEED_FEATURES)[number];

export interface ConversationModel {
  need: { bias: number; weights: Record<NeedFeature, number> };
}

/**
 * Serves until an import fits a catalog's own: the fits on two catalogs' synthetic conversations
 * (CrowdFlower's 9,912 products and Home Depot's 54,667), rounded between them. Each weight says
 * the same on both: the conversation's likeness to chat weighs most, against the best candidate's
 * cosine and probability, the likeness to ways of asking for something and the words of shopping.
 */
export const DEFAULT_CONVERSATION_MODEL: ConversationModel = {
  need: {
    bias: -0.9,
    weights: {
      bestProbability: 1.3,
      topProbability: 0.9,
      bestCosine: 4,
      chatter: -16,
      shoppingTalk: 12.9,
      mass: 0.14,
      wanted: 0.7,
      shopping: 1.4,
      question: -1.4,
    },
  },
};

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The need signals in NEED_FEATURES order. */
export const needVector = (x: Record<NeedFeature, number>): number[] => NEED_FEATURES.map((n) => x[n]);

/** P(need) from the signals. */
export function needProbability(model: ConversationModel, x: Record<NeedFeature, number>): number {
  let z = model.need.bias;
  for (const n of NEED_FEATURES) z += (model.need.weights[n] ?? 0) * x[n];
  return sigmoid(z);
}

/** A stored conversation model, or null when absent or unreadable (the default serves then). */
export function parseConversationModel(value: unknown): ConversationModel | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const need = v.need as Record<string, unknown> | undefined;
  if (typeof need?.bias !== 'number' || typeof need.weights !== 'object' || need.weights === null) return null;
  const weights = need.weights as Record<string, unknown>;
  if (!NEED_FEATURES.every((n) => typeof weights[n] === 'number' && Number.isFinite(weights[n]))) return null;
  return { need: { bias: need.bias, weights: Object.fromEntries(NEED_FEATURES.map((n) => [n, weights[n] as number])) as Record<NeedFeature, number> } };
}
