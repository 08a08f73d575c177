/**
 * What search needs of a conversation beyond its need words (need.ts): its embeddings, whether it
 * touches a sensitive topic, and the signals of the shopping-need decision
 * (conversation-model.ts). One per search service; the embeddings of the chat, shopping-talk and
 * sensitive-topic examples are computed once, when the service warms up (or on first use).
 */
import { toEmbeddingInput } from '../catalog/embedding-text.js';
import { cosineOf, meanVector } from '../ranking/vectors.js';
import type { Embedder } from '../shared-ports.js';
import { CHATTER } from './chatter.js';
import type { NeedFeature } from './conversation-model.js';
import type { Need } from './need.js';
import { SENSITIVE_EXAMPLES, SENSITIVE_TOPICS, type SensitiveTopic, sensitiveTopic } from './sensitive.js';
import { SHOPPING_TALK } from './shopping-talk.js';

/** A turn this close to one of a sensitive topic's examples, and closer to it than to any ordinary talk, is that topic (docs/search.md, "Sensitive topics"). */
const SENSITIVE_SIMILARITY = 0.68;

export interface ConversationVectors {
  /** The mean of the turns' mean and the interpreted need: what the vector retrieval searches with. */
  query: Float32Array;
  /** The last message and the user turn before it, the latest first. */
  turns: Float32Array[];
}

/** The vectors of a conversation's need (ConversationReader.embed); `need.spoken` is never empty here (search browses by price then). */
export async function embedNeed(embedder: Embedder, need: Need): Promise<ConversationVectors> {
  const one = async (text: string) => (await embedder.embed([toEmbeddingInput(text)]))[0]!;
  const [turns, interpreted] = await Promise.all([Promise.all(need.spoken.map(one)), need.interpreted !== '' ? one(need.interpreted) : null]);
  const spoken = meanVector(turns);
  return { query: interpreted === null ? spoken : meanVector([spoken, interpreted]), turns };
}

interface Examples {
  chatter: Float32Array[];
  shopping: Float32Array[];
  sensitive: { topic: SensitiveTopic; vector: Float32Array }[];
}

export class ConversationReader {
  private examples: Promise<Examples> | null = null;

  constructor(private readonly embedder: Embedder) {}

  /**
   * Embeds the last message, the user turn before it and the interpreted need, each in a call of
   * its own: USE-lite pads a batch to its longest text, so one batch of mixed lengths costs more
   * than its texts apart (docs/search.md, "Bounds on a conversation's work").
   */
  async embed(need: Need): Promise<ConversationVectors> {
    return embedNeed(this.embedder, need);
  }

  /** The sensitive topic the conversation touches, by the patterns or by closeness to the examples; null when none. */
  async sensitive(texts: readonly string[], vectors: ConversationVectors): Promise<SensitiveTopic | null> {
    const byPattern = sensitiveTopic(texts);
    if (byPattern !== null) return byPattern;
    const { sensitive, chatter, shopping } = await this.loadExamples();
    let best: { topic: SensitiveTopic; similarity: number } | null = null;
    for (const turn of vectors.turns) {
      let closest: { topic: SensitiveTopic; similarity: number } | null = null;
      for (const e of sensitive) {
        const similarity = cosineOf(turn, e.vector);
        if (similarity >= SENSITIVE_SIMILARITY && (closest === null || similarity > closest.similarity)) closest = { topic: e.topic, similarity };
      }
      if (closest === null) continue;
      // Only when closer to the topic than to any ordinary talk: "my cat is getting older" is near
      // "the vet said it is time to put our cat to sleep", but nearer still to everyday chat.
      const ordinary = Math.max(...chatter.map((v) => cosineOf(turn, v)), ...shopping.map((v) => cosineOf(turn, v)));
      if (closest.similarity > ordinary && (best === null || closest.similarity > best.similarity)) best = closest;
    }
    return best?.topic ?? null;
  }

  /**
   * Closeness of the conversation's last message to chat that asks for nothing (the best cosine to
   * any CHATTER example; `skip` leaves one out, for fitting on them) and to ways of asking for
   * something to buy (SHOPPING_TALK).
   */
  async chatterSimilarity(vectors: ConversationVectors, skip = -1): Promise<{ chatter: number; shopping: number }> {
    const { chatter, shopping } = await this.loadExamples();
    const last = vectors.turns[0];
    if (last === undefined) return { chatter: 0, shopping: 0 };
    let best = 0;
    for (let i = 0; i < chatter.length; i++) if (i !== skip) best = Math.max(best, cosineOf(last, chatter[i]!));
    let shop = 0;
    for (const v of shopping) shop = Math.max(shop, cosineOf(last, v));
    return { chatter: best, shopping: shop };
  }

  /** Embeds the chat and sensitive-topic examples now (about 0.6 s of the embedding thread), not in the first conversation's search. */
  async warm(): Promise<void> {
    await this.loadExamples();
  }

  private loadExamples(): Promise<Examples> {
    this.examples ??= (async () => {
      const sensitiveTexts = SENSITIVE_TOPICS.flatMap((topic) => SENSITIVE_EXAMPLES[topic].map((text) => ({ topic, text })));
      const vectors = await this.embedder.embed([...CHATTER, ...SHOPPING_TALK, ...sensitiveTexts.map((s) => s.text)].map(toEmbeddingInput));
      const sensitiveStart = CHATTER.length + SHOPPING_TALK.length;
      return {
        chatter: vectors.slice(0, CHATTER.length),
        shopping: vectors.slice(CHATTER.length, sensitiveStart),
        sensitive: sensitiveTexts.map((s, i) => ({ topic: s.topic, vector: vectors[sensitiveStart + i]! })),
      };
    })();
    this.examples.catch(() => {
      this.examples = null;
    });
    return this.examples;
  }
}

/** The need signals of a conversation from its candidates (probabilities given the need, best first) and its text. */
export function needSignals(
  need: Need,
  query: string,
  userTexts: readonly string[],
  ranked: readonly { probability: number; cosine: number }[],
  likeness: { chatter: number; shopping: number },
): Record<NeedFeature, number> {
  const top = ranked.slice(0, 3);
  return {
    bestProbability: top[0]?.probability ?? 0,
    topProbability: top.length > 0 ? top.reduce((s, c) => s + c.probability, 0) / top.length : 0,
    bestCosine: Math.max(0, ...ranked.slice(0, 10).map((c) => c.cosine)),
    chatter: likeness.chatter,
    shoppingTalk: likeness.shopping,
    mass: Math.min(3, need.mass),
    wanted: need.wanted ? 1 : 0,
    shopping: Math.min(
      3,
      userTexts.reduce((n, t) => n + (t.match(SHOPPING) ?? []).length, 0),
    ),
    question: QUESTION.test(query.trim()) ? 1 : 0,
  };
}

/** Words of shopping in any turn of the person's. */
const SHOPPING =
  /\b(?:buy|buying|bought|purchase|gift|present|recommend|recommendation|suggest|looking for|shopping|shop|order|price|cheap|cheaper|afford|affordable|budget|deal|brand|which one|best|good one|options|replace|replacement|get me|need a|need an|need some|want a|want an|want some)\b/gi;

/** A last message that asks for a fact, an explanation or a piece of writing. */
const QUESTION =
  /^(?:who|whom|whose|when|where|why|how (?:many|much|long|far|old|often|come)|what (?:is|are|was|were|does|did|do) (?:the|a|an)\b|what's the|explain|define|translate|convert|calculate|solve|summari[sz]e|tell me (?:about|a)|write|rewrite|draft|proofread|is it true)\b/i;
