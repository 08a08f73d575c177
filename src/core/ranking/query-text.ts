/**
 * Query understanding that needs no model: terms for lexical matching and coverage, price
 * constraints stated in words ("under $120"), and the text the conversation adds.
 */

/** Words of conversation rather than of the thing wanted; not matched against products. */
export const CONVERSATIONAL_WORDS = new Set(
  (
    "a an and are as at be but by for from has have i i'd i'm in into is it its me my need needs of on one ones or " +
    'our some that the their them these they this those to want wants was we what which with would you your please ' +
    'looking look find show get got buy something any also like can could should do does just really very good best'
  ).split(' '),
);

/** Lower-case word tokens without stopwords; keeps numbers and measures ("10.5", "1/2"). */
function queryTerms(text: string): string[] {
  const tokens =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+(?:[./'-][\p{L}\p{N}]+)*/gu) ?? [];
  return tokens.filter((t) => !CONVERSATIONAL_WORDS.has(t));
}

export interface PriceConstraint {
  minPrice?: number;
  maxPrice?: number;
  /** The words that stated it, removed from the text used for matching. */
  phrase: string;
}

const AMOUNT = String.raw`\$?\s?(\d{1,6}(?:[.,]\d{1,2})?)\s?(?:usd|dollars?|bucks)?`;
const PRICE_PATTERNS: { re: RegExp; build: (a: number, b?: number) => Omit<PriceConstraint, 'phrase'> }[] = [
  {
    re: new RegExp(String.raw`\bbetween\s+${AMOUNT}\s+(?:and|to|-)\s+${AMOUNT}`, 'i'),
    build: (a, b) => ({ minPrice: Math.min(a, b!), maxPrice: Math.max(a, b!) }),
  },
  { re: /\$(\d{1,6}(?:\.\d{1,2})?)\s?(?:-|–|to)\s?\$(\d{1,6}(?:\.\d{1,2})?)/i, build: (a, b) => ({ minPrice: Math.min(a, b!), maxPrice: Math.max(a, b!) }) },
  {
    re: new RegExp(String.raw`\b(?:under|below|less than|cheaper than|up to|max(?:imum)?|no more than|at most|within)\s+${AMOUNT}`, 'i'),
    build: (a) => ({ maxPrice: a }),
  },
  { re: new RegExp(String.raw`\b(?:over|above|more than|at least|min(?:imum)?|from)\s+${AMOUNT}`, 'i'), build: (a) => ({ minPrice: a }) },
];

/** Finds a price range stated in words; only amounts written with a currency cue or a comparison word count. */
export function extractPriceConstraint(text: string): PriceConstraint | null {
  for (const { re, build } of PRICE_PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    const a = Number(m[1]!.replace(',', '.'));
    const b = m[2] === undefined ? undefined : Number(m[2].replace(',', '.'));
    if (!Number.isFinite(a) || (b !== undefined && !Number.isFinite(b))) continue;
    // "under 2" in "under 2 hours" is not a price: require a $ or currency word for small bare numbers.
    if (!/\$|usd|dollar|buck/i.test(m[0]) && a < 5) continue;
    return { ...build(a, b), phrase: m[0] };
  }
  return null;
}

export interface Turn {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
}

/**
 * The text a search matches on: the current query first, then the most recent earlier user
 * turns (from the request's conversation_context, else the session's previous queries).
 * Recent user turns shape the query more than older ones or the assistant's words, so only the
 * last two user turns are added, and only when the current query is short enough to lean on
 * them ("waterproof ones under $120" needs "trail running shoes"; a full query stands alone).
 * `text` is the query and then `added`, the earlier turns' text (empty when none was used).
 */
export function contextualQuery(
  query: string,
  context: readonly Turn[],
  previousQueries: readonly string[],
): { text: string; added: string; usedTurn: string | null } {
  const earlier = context.filter((t) => t.role === 'user' && t.content.trim() !== '' && t.content.trim() !== query).map((t) => t.content.trim());
  const candidates = earlier.length > 0 ? earlier : previousQueries.map((q) => q.trim()).filter((q) => q !== '' && q !== query);
  const recent = candidates.slice(-2);
  if (recent.length === 0 || queryTerms(query).length > 6) return { text: query, added: '', usedTurn: null };
  const last = recent.at(-1)!;
  const added = recent.reverse().join(' ');
  return { text: `${query} ${added}`, added, usedTurn: last };
}
