/**
 * The texts bench:worst sends: made-up words that defeat the spelling and embedding caches, long
 * ids, and distinct dev queries (each handed out once).
 */
import { readJsonLines } from '../../../src/cli/files.js';
import { mulberry32 } from '../../../src/core/random.js';
import { sharedPath } from '../../shared-data.js';

/** Seeded, so every run sends the same texts. */
const random = mulberry32(8);

/**
 * A made-up word the catalog does not know: eight letters drawn from the eight commonest. Their
 * letter sets resemble many catalog words', so spelling correction rules out few candidates
 * before computing edit distances, and none is close enough to end the scan early: the costliest
 * unknown words found (docs/benchmarks.md#the-most-expensive-request-of-each-kind).
 */
function misspelt(): string {
  let w = '';
  for (let i = 0; i < 8; i++) w += 'etaoinsr'[Math.floor(random() * 8)];
  return w;
}

/** Made-up words up to `chars` characters. */
export function words(chars: number): string {
  const out: string[] = [];
  let length = -1;
  while (length + 9 <= chars) {
    out.push(misspelt());
    length += 9;
  }
  return out.join(' ');
}

/** `count` made-up words: a short query (at most six terms, so conversation turns are added to it). */
export const fewWords = (count: number) => Array.from({ length: count }, misspelt).join(' ');

/** A random printable string of exactly `chars` characters (an excluded product id at its longest). */
export const longId = (chars: number) => Array.from({ length: chars }, () => 'abcdefghijklmnopqrstuvwxyz0123456789-'[Math.floor(random() * 37)]).join('');

/** Dev queries of the Home Depot set, each handed out once (new text: no embedding cache hit). */
export class QueryTexts {
  private next = 0;
  constructor(private readonly texts: readonly string[]) {}
  take(): string {
    const text = this.texts[this.next++];
    if (text === undefined) throw new Error(`ran out of distinct queries after ${this.texts.length}`);
    return text;
  }
}

/** The dev queries of the Home Depot set when it is there, else numbered variations of the sample catalog's kinds of product. */
export async function queryTexts(homeDepot: boolean): Promise<string[]> {
  const path = homeDepot ? sharedPath('data/eval/homedepot/queries_dev.jsonl') : null;
  if (path !== null) return [...new Set((await readJsonLines<{ query: string }>(path)).map((q) => q.query.trim()).filter(Boolean))];
  // The sample catalog's kinds of product, numbered so each text is new.
  const base = [
    'waterproof trail running shoes',
    'noise cancelling headphones',
    'cast iron skillet',
    'yoga mat',
    'espresso machine',
    'camping tent for two',
    'wireless phone charger',
    'ergonomic office chair',
  ];
  return Array.from({ length: 8000 }, (_, i) => `${base[i % base.length]} ${Math.floor(i / base.length) + 1}`);
}
