/**
 * Parts of speech of a turn's words, from wink-nlp's English model (CPU, about 0.1 ms a sentence):
 * a conversation names what it wants with nouns and their adjectives, and talks with verbs.
 */

import model from 'wink-eng-lite-web-model';
import winkNLP, { type ItsFunction } from 'wink-nlp';
import { wordTokens } from '../ranking/lexical.js';

let nlp: ReturnType<typeof winkNLP> | null = null;

export interface WordRole {
  /** Universal POS tag where the word first occurs: NOUN, PROPN, VERB, ADJ, NUM, … */
  pos: string;
  /** Part of a date, time or duration ("Saturday", "all day"): when, not what. */
  when: boolean;
  /** In the noun phrase a verb of wanting governs ("I want [some cushions]", "looking for [a capo]"). */
  wanted: boolean;
}

/** Verbs whose object is what the person wants (lemmas). */
const WANTING = new Set(['want', 'need', 'get', 'buy', 'find', 'recommend', 'suggest', 'show', 'order', 'replace', 'prefer', 'pick', 'choose', 'like', 'love']);
/** What may stand inside the wanted noun phrase. */
const PHRASE = new Set(['DET', 'ADJ', 'NOUN', 'PROPN', 'NUM', 'PRON', 'ADP', 'PART', 'CCONJ']);

/** Each word of `text` (as wordTokens spells it) → its role where it first occurs. */
export function wordRoles(text: string): Map<string, WordRole> {
  nlp ??= winkNLP(model);
  const its = nlp.its;
  const doc = nlp.readDoc(text);
  const words = doc.tokens().out();
  const pos = doc.tokens().out(its.pos);
  // A gerund before a noun names a kind of it ("running shoes", "sleeping bag"): a modifier, not an action.
  for (let i = 0; i + 1 < pos.length; i++)
    if (pos[i] === 'VERB' && /ing$/i.test(words[i]!) && (pos[i + 1] === 'NOUN' || pos[i + 1] === 'PROPN')) pos[i] = 'ADJ';
  // wink-nlp 2.4's typings give its.lemma a signature out() does not accept; it works as documented.
  const lemmas = doc.tokens().out(its.lemma as unknown as ItsFunction<string>);
  const when = new Array<boolean>(words.length).fill(false);
  const entities = doc.entities();
  const types = entities.out(its.type) as string[];
  const spans = entities.out(its.span) as unknown as [number, number][];
  types.forEach((type, k) => {
    if (type !== 'DATE' && type !== 'TIME' && type !== 'DURATION') return;
    const [first, last] = spans[k]!;
    for (let i = first; i <= last; i++) when[i] = true;
  });
  const wanted = new Array<boolean>(words.length).fill(false);
  for (let i = 0; i < words.length; i++) {
    if (pos[i] !== 'VERB' || !WANTING.has(lemmas[i]!)) continue;
    // "looking for", "in the market for": the phrase starts after the preposition.
    let j = i + 1;
    let nouns = 0;
    for (; j < words.length && PHRASE.has(pos[j]!); j++) {
      if (pos[j] === 'NOUN' || pos[j] === 'PROPN') nouns++;
      // A second preposition after the head noun starts what it is for ("a capo for my acoustic").
      if ((pos[j] === 'ADP' || pos[j] === 'PART') && nouns > 0) break;
      wanted[j] = pos[j] === 'NOUN' || pos[j] === 'PROPN' || pos[j] === 'ADJ' || pos[j] === 'NUM';
    }
  }
  const roles = new Map<string, WordRole>();
  words.forEach((w, i) => {
    for (const t of wordTokens(w)) if (!roles.has(t)) roles.set(t, { pos: pos[i]!, when: when[i]!, wanted: wanted[i]! });
  });
  return roles;
}
