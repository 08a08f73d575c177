/**
 * What a conversation asks for, in the catalog's words. A product query ("cast iron skillet")
 * passes through untouched; a conversation ("I just bought whole coffee beans." / "I realised I
 * have nothing to grind them with") becomes weighted need terms: the person's words over the
 * assistant's, the last turn over earlier ones, words the catalog uses in titles over words of
 * talk, recipients as the modifier they mean ("my daughter" → girls), and the product types the
 * catalog's own products associate with those words ("grind", "beans", "coffee" → grinder).
 * docs/search.md, "Conversations".
 */
import { stem, wordTokens } from '../ranking/lexical.js';
import { type WordRole, wordRoles } from './parts-of-speech.js';
import type { NeedVocabulary } from './vocabulary.js';
import { RECIPIENTS, TALK_WORDS } from './words.js';

export interface Turn {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
}

/** One word of the need, with how much it carries it (the largest is 1). */
interface NeedWord {
  /** The word as the catalog's text tokenises it (canonical measures, lower case). */
  word: string;
  weight: number;
  /** Where it came from: the last message, an earlier turn, or inferred from the catalog. */
  source: 'query' | 'context' | 'recipient' | 'type';
  /** The earlier turn it came from (its text), for the explanation; null for the last message and inferred words. */
  turn: string | null;
  /**
   * Whether a product may lack it without counting against it (features.ts): a light word that
   * says something about the situation, not what was asked for or what kind of product it is.
   */
  optional: boolean;
}

export interface Need {
  /** 'query': a product query, searched as typed; 'conversation': read as below. */
  kind: 'query' | 'conversation';
  words: NeedWord[];
  /** The need as a short product query in the catalog's words (metadata.interpreted_query). */
  interpreted: string;
  /**
   * The last message and the user turn before it, as said (each up to MAX_TURN_CHARS): the
   * embedding model reads sentences. The query vector is the mean of theirs and the interpreted
   * need's (conversation.ts).
   */
  spoken: string[];
  /** How much product talk there is: the summed weight of the three heaviest words before they are scaled to 1. */
  mass: number;
  /** Whether a verb of wanting governs one of the need words ("I need [a capo]"). */
  wanted: boolean;
  /** Whether the person's own words name a kind of product the catalog sells ("tent"): the knowledge base then adds none. */
  named: boolean;
  /** The product type the shopper's knowledge base read in the conversation (search's knowledge stage), and the need that led there. */
  knowledge?: { type: string; because: string };
}

export interface NeedOptions {
  /** Weight of each earlier user turn, most recent first; further ones get the last. */
  contextWeights: readonly number[];
  assistantWeight: number;
  /** Words below this share of the heaviest are left out of the interpreted query. */
  keepShare: number;
  /** How much a word's share of title use counts against plain presence in the catalog. */
  titleBias: number;
  recipientWeight: number;
  /** Inferred product types added at most (the vote's winners), each weighted typeWeight × its share of the vote (× 2, capped at 1). */
  maxTypes: number;
  typeWeight: number;
  /** Weight of a word by its part of speech in its sentence. */
  pos: Readonly<Record<string, number>>;
  /** Products added to a word's count when it shares out its vote: a rare word votes less surely. */
  typeSmoothing: number;
  /** How much more a word weighs when it is the catalog's type for the products using it (× √share). */
  typeBoost: number;
  /** A word lighter than this share of the heaviest is optional (NeedWord.optional) unless it was asked for or names a type. */
  optionalBelow: number;
  /** Need words kept at most, the heaviest. */
  maxWords: number;
  /** Weight of a word in the noun phrase a verb of wanting governs ("I need [a capo]"), relative to others. */
  wantedBoost: number;
  /** A type with less than this share of the vote is not added. */
  minTypeShare: number;
}

/** The weights as shipped; chosen on the tuning folds of the conversation sets (docs/decisions/0001-reading-conversations.md). */
const NEED_DEFAULTS: Readonly<NeedOptions> = Object.freeze({
  contextWeights: [0.5, 0.35, 0.25],
  assistantWeight: 0.2,
  keepShare: 0.3,
  titleBias: 0.7,
  recipientWeight: 0.3,
  maxTypes: 1,
  typeWeight: 0.8,
  pos: { NOUN: 1, PROPN: 1, NUM: 0.8, ADJ: 0.8, VERB: 0.3, ADV: 0.2, X: 0.5 },
  typeSmoothing: 5,
  minTypeShare: 0.1,
  wantedBoost: 1.5,
  maxWords: 8,
  optionalBelow: 0.6,
  typeBoost: 1,
});

/**
 * Bounds on one request's reading (docs/search.md, "Bounds on one request's work"): the latest
 * user and assistant turns, each up to MAX_TURN_CHARS, are read; older ones weigh too little to
 * change the need, and a 50-turn conversation of 4,000 characters each costs what a short one does.
 */
const MAX_USER_TURNS = 4;
const MAX_ASSISTANT_TURNS = 2;
const MAX_TURN_CHARS = 600;

/**
 * A word names a kind of product when at least this many products are of that type, and at least
 * this share of the products using the word are ("tent", "blender"; not "screen", which a
 * catalog mostly uses for screen protectors and phones' screens).
 */
const NAMED_TYPE_PRODUCTS = 3;
const NAMED_TYPE_SHARE = 0.2;

/**
 * Signs of talk in a message: a person speaking ("I need", "my", "we're", "you"), or a question.
 * Product queries have none ("trash can lids", "i robot" and "how much is a 4x6 treated" stay
 * product queries: a bare "i", "can" or question word is not enough).
 */
const TALK =
  /\?|\b(?:i'm|im|i've|i'd|i'll|my|me|mine|we|we're|our|us|you|your|yours)\b|\bi\s+(?:am|was|have|had|need|want|would|will|do|did|just|think|like|love|got|can|could|should|really|also)\b/i;

/**
 * A product query, searched as search has always searched one: no earlier turn (of the
 * conversation or the session), and no sign of talk.
 */
export function isProductQuery(query: string, context: readonly Turn[]): boolean {
  if (context.length > 0 || TALK.test(query) || WANTING_START.test(query)) return false;
  // A long message of words is a sentence; a long one of sizes and numbers is a product spec.
  const words = query.split(/\s+/).filter(Boolean);
  return words.length < SENTENCE_WORDS || words.filter((w) => /\d/.test(w)).length >= 2;
}

/** A message that opens with a wish ("Need a new garden hose that …") is talk without a pronoun. */
const WANTING_START = /^\s*(?:need|needs|want|wanted|looking for|searching for|shopping for)\b/i;
/** Words from which a message without numbers reads as a sentence. */
const SENTENCE_WORDS = 12;

interface Scored {
  word: string;
  weight: number;
  source: NeedWord['source'];
  turn: string | null;
  order: number;
  wanted: boolean;
}

/**
 * Reads the need in `query` (the person's last message, or the agent's summary) and the turns
 * before it (oldest first). Texts arrive redacted and without price phrases.
 */
export function understandNeed(
  query: string,
  context: readonly Turn[],
  catalog: { vocabulary: NeedVocabulary; correct?: (word: string) => readonly string[] | null },
  options: Readonly<NeedOptions> = NEED_DEFAULTS,
): Need {
  const { vocabulary } = catalog;
  if (isProductQuery(query, context)) {
    const words = wordTokens(query).map((word) => ({ word, weight: 1, source: 'query' as const, turn: null, optional: false }));
    return { kind: 'query', words, interpreted: query.trim(), spoken: [query], mass: words.length, wanted: true, named: true };
  }
  const byWord = new Map<string, Scored>();
  let order = 0;
  const add = (word: string, weight: number, source: NeedWord['source'], turn: string | null, wanted = false) => {
    order++;
    const seen = byWord.get(word);
    if (seen === undefined) byWord.set(word, { word, weight, source, turn, order, wanted });
    else {
      // Said twice counts for more; the heavier mention says where it came from.
      if (weight > seen.weight) Object.assign(seen, { source, turn });
      seen.weight = Math.max(seen.weight, weight) + 0.25 * Math.min(seen.weight, weight);
      seen.wanted ||= wanted;
    }
  };
  // What the person says they do not want ("not a gas grill this time"): no need word, and not
  // inferred back as the catalog's type below.
  const negated = new Set<string>();
  const read = (said: string, turnWeight: number, source: NeedWord['source'], turn: string | null) => {
    const text = withoutNegated(said, (word) => negated.add(stem(word)));
    const roles = wordRoles(text);
    for (const typed of wordTokens(text)) {
      const role = roles.get(typed);
      if (role?.when) continue;
      // A word the catalog has never seen is read as the catalog word it is a typo of, if any.
      const words = vocabulary.df(stem(typed)) === 0 && !TALK_WORDS.has(typed) ? (catalog.correct?.(typed) ?? [typed]) : [typed];
      for (const word of words) readWord(word, role, turnWeight, source, turn);
    }
  };
  const readWord = (word: string, role: WordRole | undefined, turnWeight: number, source: NeedWord['source'], turn: string | null) => {
    const pos = (options.pos[role?.pos ?? (/\d/.test(word) ? 'NUM' : 'X')] ?? 0) * (role?.wanted ? options.wantedBoost : 1);
    if (pos === 0) return;
    const recipient = RECIPIENTS.get(word);
    if (recipient !== undefined) {
      // The modifier only where the catalog uses it ("girls" in a catalog without children's things says nothing).
      if (recipient !== null && vocabulary.df(stem(recipient)) > 0) add(recipient, turnWeight * options.recipientWeight, 'recipient', turn);
      return;
    }
    if (TALK_WORDS.has(word) || word.length < 2) return;
    const salience = catalogSalience(word, vocabulary, options.titleBias);
    if (salience > 0) add(word, turnWeight * pos * salience * typeness(word, vocabulary, options.typeBoost), source, turn, role?.wanted === true);
  };
  read(query.slice(0, MAX_TURN_CHARS), 1, 'query', null);
  // A last message that names a kind of product it wants ("I need a yoga mat") leaves the
  // earlier turns only to qualify it: they weigh half as much.
  const named = [...byWord.values()].some((s) => s.wanted && namesType(stem(s.word), vocabulary));
  const contextScale = named ? 0.5 : 1;
  const earlier = [...context].reverse();
  let userIndex = 0;
  let assistantIndex = 0;
  for (const turn of earlier) {
    if (turn.content.trim() === '' || turn.content.trim() === query.trim()) continue;
    if (turn.role === 'user' && userIndex < MAX_USER_TURNS) {
      const w = contextScale * options.contextWeights[Math.min(userIndex, options.contextWeights.length - 1)]!;
      userIndex++;
      read(turn.content.slice(0, MAX_TURN_CHARS), w, 'context', turn.content);
    } else if (turn.role === 'assistant' && assistantIndex++ < MAX_ASSISTANT_TURNS)
      read(turn.content.slice(0, MAX_TURN_CHARS), contextScale * options.assistantWeight, 'context', turn.content);
  }
  for (const t of inferTypes([...byWord.values()], vocabulary, options)) if (!negated.has(stem(t.word))) add(t.word, t.weight, 'type', null);
  const scored = [...byWord.values()];
  const max = Math.max(0, ...scored.map((s) => s.weight));
  const kept = scored
    .filter((s) => max > 0 && s.weight >= options.keepShare * max)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, options.maxWords)
    .sort((a, b) => a.order - b.order)
    .map((s) => ({
      word: s.word,
      weight: s.weight / max,
      source: s.source,
      turn: s.turn,
      optional: s.weight < options.optionalBelow * max && !s.wanted && s.source !== 'type' && !namesType(stem(s.word), vocabulary),
    }));
  const interpreted = kept.map((k) => k.word).join(' ');
  const lastUser = (earlier.find((t) => t.role === 'user' && t.content.trim() !== '')?.content ?? '').slice(0, MAX_TURN_CHARS);
  const spoken = [query.slice(0, MAX_TURN_CHARS), lastUser].filter((t) => t.trim() !== '');
  const mass = scored
    .map((s) => s.weight)
    .sort((a, b) => b - a)
    .slice(0, 3)
    .reduce((sum, w) => sum + w, 0);
  const namesAType = kept.some((k) => k.source !== 'type' && k.source !== 'recipient' && namesType(stem(k.word), vocabulary));
  return { kind: 'conversation', words: kept, interpreted, spoken, mass, wanted: scored.some((s) => s.wanted), named: namesAType };
}

/** A word that ends a negated phrase: a conjunction, a preposition or a word of time ("not a gas grill [this] time"). */
const PHRASE_END = '(?:and|or|but|so|because|since|if|this|that|these|again|anymore|any more|please|with|for|in|at|on|to|from|of|like|though|now|yet)';
/** The phrase a negation governs: one to three words, up to punctuation or a word of PHRASE_END. */
const NEGATED_PHRASE = `((?:(?!${PHRASE_END}\\b)[a-z0-9][a-z0-9'-]*\\s*){1,3})`;
/**
 * Negations that govern a product phrase: "not a …", "don't want a …", "instead of a …". A
 * negation that governs no product ("not sure", "not too expensive", "not a fan of") has no article
 * after it, or is listed as talk. A bare "no" is not one: "I have no cookware" needs cookware.
 */
const NEGATIONS = new RegExp(
  `\\b(?:(?:not|never|no longer)\\s+(?:a|an|another|the|any)|(?:don'?t|do not|doesn'?t|does not|didn'?t|did not|won'?t|wouldn'?t)\\s+(?:want|need|like)\\s+(?:a|an|another|the|any)?|(?:instead of|rather than|other than|anything but|as opposed to)\\s+(?:a|an|the|my|our)?)\\s+(?!(?:fan|big deal|problem|lot|huge fan)\\b)${NEGATED_PHRASE}`,
  'gi',
);

/** The text with what it says is not wanted blanked out (need words are never read from it); `each` gets every blanked word. */
export function withoutNegated(text: string, each: (word: string) => void = () => undefined): string {
  return text.replace(NEGATIONS, (match, phrase: string) => {
    for (const word of wordTokens(phrase)) each(word);
    return match.slice(0, match.length - phrase.length) + ' '.repeat(phrase.length);
  });
}

/**
 * How much the catalog says a word names or describes products: 0 for a word no product uses;
 * otherwise more for words the catalog puts in titles than for words only its descriptions use.
 */
function catalogSalience(word: string, vocabulary: NeedVocabulary, titleBias: number): number {
  const term = stem(word);
  const df = vocabulary.df(term);
  if (df === 0) return 0;
  const titleShare = (vocabulary.titleDf(term) + 0.5) / (df + 1);
  return 1 - titleBias + titleBias * Math.sqrt(titleShare);
}

/** Whether the catalog names a kind of product by the term (NAMED_TYPE_PRODUCTS, NAMED_TYPE_SHARE). */
export function namesType(term: string, vocabulary: NeedVocabulary): boolean {
  const products = vocabulary.headDf(term);
  return products >= NAMED_TYPE_PRODUCTS && products >= NAMED_TYPE_SHARE * vocabulary.df(term);
}

/**
 * More for a word the catalog's titles name products by (it is their type: "tv", "blender") than
 * for one they only describe them with ("modern", "big").
 */
function typeness(word: string, vocabulary: NeedVocabulary, boost: number): number {
  const term = stem(word);
  return 1 + boost * Math.sqrt(vocabulary.headDf(term) / Math.max(1, vocabulary.df(term)));
}

/** Product types the catalog associates with the need words. A type already among the words adds nothing. */
function inferTypes(scored: readonly Scored[], vocabulary: NeedVocabulary, options: Readonly<NeedOptions>): { word: string; weight: number }[] {
  if (options.maxTypes <= 0 || vocabulary.sampledProducts === 0) return [];
  const evidence = scored.filter((s) => s.source !== 'recipient').map((s) => ({ term: stem(s.word), weight: s.weight }));
  const ratio = vocabulary.sampledProducts / Math.max(1, vocabulary.size);
  const total = evidence.reduce((sum, e) => sum + e.weight, 0);
  if (total === 0) return [];
  // P(type | conversation) as a mixture of P(type | word) weighted by each word's need weight:
  // a type several need words point at wins; a word every type uses spreads its vote thin.
  const votes = new Map<string, number>();
  for (const e of evidence) {
    const df = vocabulary.df(e.term) * ratio + options.typeSmoothing;
    const share = e.weight / total;
    const own = vocabulary.headDf(e.term) * ratio;
    if (own > 0 && !GENERIC_TYPES.has(e.term)) votes.set(e.term, (votes.get(e.term) ?? 0) + (share * own) / df);
    for (const [type, together] of vocabulary.typesOf(e.term)) if (!GENERIC_TYPES.has(type)) votes.set(type, (votes.get(type) ?? 0) + (share * together) / df);
  }
  const present = new Set(evidence.map((e) => e.term));
  return [...votes]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, options.maxTypes)
    .filter(([type, p]) => !present.has(type) && p >= options.minTypeShare)
    .map(([type, p]) => ({ word: vocabulary.typeWord(type), weight: options.typeWeight * Math.min(1, 2 * p) }));
}

/** Title endings that name a packaging, not a kind of product: "… Cookware Set", "… Starter Kit". */
const GENERIC_TYPES = new Set([
  'set',
  'kit',
  'pack',
  'bundl',
  'size',
  'version',
  'edit',
  'collect',
  'piec',
  'pc',
  'count',
  'lot',
  'pair',
  'item',
  'product',
  'system',
  'seri',
  'model',
  'style',
  'color',
  'black',
  'white',
  'includ',
  'new',
]);
