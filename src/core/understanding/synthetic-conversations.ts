/**
 * Conversations a catalog writes for itself, the positives the shopping-need decision is fitted on
 * (conversation-fit.ts) before anybody has talked to it: templates of occasions, recipients,
 * problems and activities around a need built from one sampled product — its product type, the
 * words before it in the title, the words of its description — said plainly ("Can you recommend
 * a bird feeder?"), loosely ("I need something for sunflower seed and finches") or as a title
 * fragment, with talk around it. Seeded: one catalog gives one set. Written for Aisle; nothing
 * here comes from an evaluation set.
 */
import type { CatalogProduct } from '../catalog/product.js';
import { sampleProducts } from '../learning/synthetic-requests.js';
import { mulberry32 } from '../random.js';
import { stem, wordTokens } from '../ranking/lexical.js';
import type { Turn } from './need.js';
import { wordRoles } from './parts-of-speech.js';
import { headNounOf, type NeedVocabulary } from './vocabulary.js';
import { RECIPIENTS, TALK_WORDS } from './words.js';

export interface SyntheticConversation {
  query: string;
  context: Turn[];
  /** The product query the conversation states as a need ("wild bird feeder"). */
  core: string;
  source: CatalogProduct;
  /** How the need is said. */
  style: 'plain' | 'loose' | 'fragment';
}

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;
const fill = (template: string, slots: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_, k: string) => slots[k] ?? '');

const PEOPLE = [...RECIPIENTS.keys()].filter((w) => !w.endsWith('s') && w.length > 3);

const OPENERS = [
  'Hi!',
  'Quick question.',
  'Hope you can help.',
  "It's been a long week.",
  'So here is my situation.',
  "I've been meaning to sort this out for a while.",
  'We just moved into a new place.',
  'My {person} has a birthday coming up.',
  'Our anniversary is next month.',
  "We're hosting the family this weekend.",
  "I'm redoing a room at home.",
  "I'm trying to get organised before the holidays.",
  'My old {type} finally gave up on me.',
  'The {type} I have is worn out.',
  "I've gotten really into {topic} lately.",
  'My {person} loves {topic}.',
  "We're going away for a few days soon.",
  "I've been having trouble with {topic}.",
  'I keep putting this off.',
  'Money is a bit tight this month.',
];

const ASSISTANT = [
  'Happy to help! Do you have a budget in mind?',
  'Sure. Any preference on style or brand?',
  'Sounds good. What matters most to you?',
  'I can help with that. Is it for you or a gift?',
  'Got it. Anything else I should know?',
];

const AFTER_ASSISTANT = ['Not really, something decent.', "It's for me.", 'A gift, actually.', 'Something that lasts.', 'Nothing fancy.'];

const PLAIN = [
  'I need a {core}.',
  'Can you recommend a good {core}?',
  "I'm looking for a {core}, any ideas?",
  'What {type} should I get?',
  'I want to buy a {core}.',
  'Where can I find a decent {core}?',
  'Do you know a good {core} for {topic}?',
  'I think I need a new {type}.',
  'Show me some {core} options.',
  'Any {core} you would suggest?',
];

const LOOSE = [
  'I need something for {topic}.',
  'What would help with {topic}?',
  'Is there anything good for {topic}?',
  'What could I get for {topic}?',
  'Any ideas for {topic}?',
  'What should I get {them}? Something to do with {topic}.',
  "I'd like something nice for {topic}, what do people use?",
  'How do people deal with {topic}?',
  'Is there a way to make {topic} easier?',
  '{topic} has been a pain lately, what can I do?',
  'What do I use for {topic}?',
  "We don't have anything for {topic} yet.",
  'How do I get started with {topic}?',
];

/** Openers that set up a need without naming the product, for the loose requests. */
const SETUPS = [
  "I've been spending a lot of time on {topic}.",
  'We just started with {topic}.',
  'My {person} is really into {topic}.',
  '{topic} is a big part of my week now.',
  'I keep struggling with {topic}.',
];

const FRAGMENT = ['I saw a {fragment} somewhere, do you have that?', 'The {fragment} one, if you have it.', 'Something like a {fragment} would be great.'];

/** The title's type word and up to two words before it that are not the brand, numbers or talk. */
function coreOf(p: CatalogProduct, vocabulary: NeedVocabulary): { type: string; core: string } | null {
  const head = headNounOf(p.title);
  if (head === undefined) return null;
  const type = vocabulary.typeWord(head.term);
  const brand = new Set(wordTokens(p.brand ?? ''));
  const words = wordTokens(p.title).filter((w) => (w === head.word || w.length >= 3) && !/\d/.test(w) && !brand.has(w) && !TALK_WORDS.has(w));
  const at = words.lastIndexOf(head.word);
  const before = at > 0 ? words.slice(Math.max(0, at - 2), at) : [];
  return { type, core: [...before, type].join(' ') };
}

/**
 * Description words that are not in the title and that the catalog associates with the product's
 * type: the uses and settings a person names instead of the product ("beans", "espresso" for a
 * grinder), best first.
 */
function topicsOf(p: CatalogProduct, type: string, vocabulary: NeedVocabulary): string[] {
  const title = new Set(wordTokens(p.title));
  const text = `${p.description.slice(0, 400)} ${p.category.join(' ')}`;
  const roles = wordRoles(text);
  const scored = new Map<string, number>();
  for (const w of wordTokens(text)) {
    if (w.length < 4 || /\d/.test(w) || title.has(w) || TALK_WORDS.has(w) || scored.has(w) || roles.get(w)?.pos !== 'NOUN') continue;
    const term = stem(w);
    const together = vocabulary.typesOf(term).find(([t]) => t === type)?.[1] ?? 0;
    const share = together / Math.max(1, vocabulary.df(term) * (vocabulary.sampledProducts / Math.max(1, vocabulary.size)));
    if (together >= 2 && share >= 0.05) scored.set(w, share);
  }
  return [...scored].sort((a, b) => b[1] - a[1]).map(([w]) => w);
}

/** One conversation per sampled product that has a product type, of a style drawn at random. */
export function syntheticConversations(
  products: readonly CatalogProduct[],
  vocabulary: NeedVocabulary,
  options: { count: number; seed: number },
): SyntheticConversation[] {
  const random = mulberry32(options.seed);
  const out: SyntheticConversation[] = [];
  for (const source of sampleProducts(products, options.count, random)) {
    const core = coreOf(source, vocabulary);
    if (core === null) continue;
    // What the product is for: its description's words tied to its type, else the words before
    // the type in its title ("bird" of a bird feeder), which a person names without the product.
    const described = topicsOf(source, stem(core.type), vocabulary);
    const topics = described.length > 0 ? described : core.core.split(' ').slice(0, -1);
    const topic = topics.length > 0 ? topics.slice(0, 1 + Math.floor(random() * 2)).join(' and ') : core.type;
    const titleWords = wordTokens(source.title).filter((w) => !/\d/.test(w));
    const n = Math.min(titleWords.length, 2 + Math.floor(random() * 2));
    const start = Math.floor(random() * Math.max(1, titleWords.length - n + 1));
    const slots = {
      core: core.core,
      type: core.type,
      topic,
      person: pick(PEOPLE, random),
      them: pick(['him', 'her', 'them'], random),
      fragment: titleWords.slice(start, start + n).join(' '),
    };
    const roll = random();
    // Plain requests need no material; a loose one needs words the catalog ties to the product's type.
    const style: SyntheticConversation['style'] = topics.length > 0 && roll < 0.5 ? 'loose' : roll < 0.9 ? 'plain' : 'fragment';
    const context: Turn[] = [];
    const turns = Math.floor(random() * 3);
    for (let i = 0; i < turns; i++) context.push({ role: 'user', content: fill(pick(style === 'loose' && i === turns - 1 ? SETUPS : OPENERS, random), slots) });
    let query = fill(pick(style === 'plain' ? PLAIN : style === 'loose' ? LOOSE : FRAGMENT, random), slots);
    if (random() < 0.2) {
      context.push({ role: 'user', content: query }, { role: 'assistant', content: pick(ASSISTANT, random) });
      query = pick(AFTER_ASSISTANT, random);
    }
    out.push({ query, context, core: core.core, source, style });
  }
  return out;
}
