/**
 * Matching a conversation to the shopper's knowledge base (docs/knowledge.md, "Reading with
 * it"): what a person says ("how do we show a film on a big sheet?") against the needs and names
 * of every product type, by embedding and by words. A type wins only by a margin over the next
 * type, and a conversation that already names a type the catalog knows keeps it.
 */
import { contentStems, type KnowledgeEntry, type Relation } from './entries.js';

export interface KnowledgeVectors {
  /** One vector per need of each entry, in the entries' order, and one per name likewise (any length: they are normalised here). */
  needs: Float32Array[];
  names: Float32Array[];
}

export interface KnowledgeMatch {
  type: string;
  categoryId: number;
  /** What the catalog calls it: the type's names, its own first. */
  names: readonly string[];
  /** The need (or name) that led there, as written in the base. */
  because: { relation: Relation | 'name'; text: string };
  score: number;
  /** Over the best other type. */
  margin: number;
  /** The vector of the type's own first name: what the query vector leans towards. */
  vector: Float32Array;
}

export interface MatchOptions {
  /** Types whose mean need vector is closest, kept before their needs are scored one by one. */
  shortlist: number;
  /** Weight of the share of a need's content words the conversation uses, beside its cosine. */
  wordWeight: number;
  /** A type wins from this score... */
  minScore: number;
  /** ...and this far ahead of the best other type. */
  minMargin: number;
  /** Types scoring within this of the winner count when checking whether the person named the kind they want. */
  namedWithin: number;
  /** How much the person's turn before the last message counts, against the last message's 1. */
  earlierTurn: number;
}

const MATCH_DEFAULTS: Readonly<MatchOptions> = Object.freeze({
  shortlist: 40,
  wordWeight: 0.25,
  minScore: 0.55,
  minMargin: 0.03,
  namedWithin: 0.1,
  earlierTurn: 1,
});

interface Item {
  entry: number;
  /** Its row in the matcher's int8 codes. */
  row: number;
  stems: readonly string[];
  because: KnowledgeMatch['because'];
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function normalised(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v)) || 1;
  return v.map((x) => x / n);
}

/**
 * The base, indexed for matching: per type its needs and names with their vectors and content
 * words, and the mean of its need vectors, which shortlists types in one pass (5,000 dot products
 * rather than 70,000) before their needs are scored. The need and name vectors are kept as int8
 * codes with a scale per vector (a quarter of the memory of float32; cosines move by well under
 * 0.01): docs/knowledge.md, "Its vectors".
 */
export class KnowledgeMatcher {
  private readonly items: Item[][];
  private readonly codes: Int8Array;
  private readonly scales: Float32Array;
  /** The types' mean need vectors, one after another in one array: the shortlist is one pass over it. */
  private readonly centroids: Float32Array;
  private readonly dimensions: number;
  /** Each type's first name's vector (a copy: nothing here holds the caller's arrays). */
  private readonly nameVectors: Float32Array[];
  /** Content stems of each type's names: a conversation using a name's head word (its last) names that kind of product. */
  private readonly nameStems: string[][][];

  constructor(
    private readonly entries: readonly KnowledgeEntry[],
    vectors: KnowledgeVectors,
    private readonly options: MatchOptions = MATCH_DEFAULTS,
  ) {
    const d = vectors.needs[0]?.length ?? vectors.names[0]?.length ?? 0;
    this.dimensions = d;
    const rows = vectors.needs.length + vectors.names.length;
    this.codes = new Int8Array(rows * d);
    this.scales = new Float32Array(rows);
    this.centroids = new Float32Array(entries.length * d);
    let row = 0;
    let need = 0;
    let name = 0;
    const encode = (v: Float32Array): number => {
      const unit = normalised(v);
      const max = unit.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
      for (let i = 0; i < d; i++) this.codes[row * d + i] = Math.round((unit[i]! / max) * 127);
      this.scales[row] = max / 127;
      return row++;
    };
    this.nameVectors = [];
    this.items = entries.map((e, entry) => {
      const mean = new Float32Array(d);
      const needs = e.needs.map((n) => {
        const v = vectors.needs[need++]!;
        const unit = normalised(v);
        for (let i = 0; i < d; i++) mean[i]! += unit[i]!;
        return { entry, row: encode(v), stems: contentStems(n.text), because: { relation: n.relation, text: n.text } };
      });
      this.centroids.set(normalised(mean), entry * d);
      const names = e.names.map((text, i) => {
        const v = vectors.names[name++]!;
        if (i === 0) this.nameVectors.push(normalised(v));
        return { entry, row: encode(v), stems: contentStems(text), because: { relation: 'name' as const, text } };
      });
      return [...needs, ...names];
    });
    this.nameStems = entries.map((e) => e.names.map(contentStems).filter((s) => s.length > 0));
  }

  /** Cosine of a unit query with a stored vector. */
  private cosine(q: Float32Array, row: number): number {
    const d = this.dimensions;
    const codes = this.codes;
    let s = 0;
    for (let i = 0, o = row * d; i < d; i++, o++) s += q[i]! * codes[o]!;
    return s * this.scales[row]!;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The product type a conversation asks for without naming it, or null: `turns` are the vectors of
   * the person's latest messages (the last first), `texts` their words. Null when no type scores
   * `minScore` and leads by `minMargin`, or when the person's words already name a type.
   */
  match(turns: readonly Float32Array[], texts: readonly string[], sells: (name: string) => boolean = () => true): KnowledgeMatch | null {
    if (turns.length === 0 || this.entries.length === 0) return null;
    const spoken = new Set(texts.flatMap(contentStems));
    const queries = turns.map(normalised);
    // Shortlist by the types' mean need vectors.
    const d = this.dimensions;
    const cosines = new Float32Array(this.entries.length);
    // One pass over the means for both messages, the arrays in locals: the hot loop of a match.
    const centroids = this.centroids;
    const q0 = queries[0]!;
    const q1 = queries[1] ?? q0;
    for (let entry = 0, o = 0; entry < this.entries.length; entry++) {
      let s0 = 0;
      let s1 = 0;
      for (let i = 0; i < d; i++, o++) {
        const c = centroids[o]!;
        s0 += q0[i]! * c;
        s1 += q1[i]! * c;
      }
      cosines[entry] = Math.max(s0, s1);
    }
    const shortlist = topEntries(cosines, this.options.shortlist).map((entry) => ({ entry }));
    const best = new Map<number, { score: number; item: Item }>();
    // Only types the catalog sells under one of their names: another type's words would only cost recall.
    const sold = new Map<number, string>();
    for (const { entry } of shortlist) {
      const name = this.entries[entry]!.names.find(sells);
      if (name !== undefined) sold.set(entry, name);
      for (const item of this.items[entry]!) {
        // The last message says what is wanted now; the turn before counts `earlierTurn` times as much (as much, as shipped).
        const cosine = Math.max(...queries.map((q, i) => (i === 0 ? 1 : this.options.earlierTurn) * this.cosine(q, item.row)));
        const words = item.stems.length === 0 ? 0 : item.stems.filter((s) => spoken.has(s)).length / item.stems.length;
        const score = cosine + this.options.wordWeight * words;
        const seen = best.get(entry);
        if (seen === undefined || score > seen.score) best.set(entry, { score, item });
      }
    }
    const scored = [...best.entries()].sort((a, b) => b[1].score - a[1].score);
    // Types it does not sell may still say the person named something (below), but never win.
    const ranked = scored.filter(([e]) => sold.has(e));
    const [first, second] = ranked;
    if (first === undefined) return null;
    const margin = first[1].score - (second?.[1].score ?? 0);
    if (first[1].score < this.options.minScore || margin < this.options.minMargin) return null;
    const entry = this.entries[first[0]]!;
    // The person named the kind they want: a type scoring near the winner's has a name whose head
    // word they used ("a throwback jersey", "a chain with a pendant"). The catalog's own reading
    // has it; the base would only swap it for a neighbour (a jersey for hockey, a jewelry cleaner).
    const near = scored.filter(([, b]) => b.score >= first[1].score - this.options.namedWithin);
    if (near.some(([e]) => this.nameStems[e]!.some((stems) => spoken.has(stems.at(-1)!)))) return null;
    const sellsAs = sold.get(first[0])!;
    return {
      type: entry.type,
      categoryId: entry.category_id,
      // The name the catalog sells it under first.
      names: [sellsAs, ...entry.names.filter((n) => n !== sellsAs)],
      because: first[1].item.because,
      score: first[1].score,
      margin,
      vector: this.nameVectors[first[0]]!,
    };
  }
}

/** The texts to embed for a base, in the order KnowledgeVectors keeps them: every need, then every name. */
export function knowledgeTexts(entries: readonly KnowledgeEntry[]): { needs: string[]; names: string[] } {
  return { needs: entries.flatMap((e) => e.needs.map((n) => n.text)), names: entries.flatMap((e) => e.names) };
}

/** The indices of the `k` largest values, largest first: one pass, without sorting them all. */
function topEntries(values: Float32Array, k: number): number[] {
  const top: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (top.length === k && v <= values[top[k - 1]!]!) continue;
    let at = top.length === k ? k - 1 : top.length;
    while (at > 0 && values[top[at - 1]!]! < v) {
      if (at < k) top[at] = top[at - 1]!;
      at--;
    }
    top[at] = i;
  }
  return top;
}
