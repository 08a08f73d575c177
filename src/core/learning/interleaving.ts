/**
 * Team-draft interleaving (Radlinski, Kurup and Joachims, "How does clickthrough data reflect
 * retrieval quality?", CIKM 2008): the guard a learned ranking model passes before it serves.
 * Each interleaved search shows one list merged from the serving model's ranking (team 0) and
 * the candidate's (team 1); a click credits the team that placed the result. Both teams get
 * every position equally often, so position bias cancels out, and one search with a preference
 * is one vote. Where both rankings put the same product next, it is placed for neither team: a
 * click on what both models agree on says nothing about which is better, and crediting it to a
 * random team (plain team draft) only adds noise to the test.
 */

import type { InterleavedOutcome } from './ports.js';

export type Team = 0 | 1;

/**
 * Merges two rankings of the same items: where both rank the same item next it goes in for
 * neither team (team null); otherwise the team with fewer picks so far (a coin flip on a tie)
 * adds its highest-ranked item not yet shown. `limit` items at most.
 */
export function teamDraft<T>(
  a: readonly T[],
  b: readonly T[],
  limit: number,
  key: (item: T) => string,
  random: () => number,
): { item: T; team: Team | null }[] {
  const out: { item: T; team: Team | null }[] = [];
  const taken = new Set<string>();
  const next = [0, 0];
  const picks = [0, 0];
  const lists = [a, b] as const;
  const advance = (team: Team): T | undefined => {
    const list = lists[team];
    while (next[team]! < list.length && taken.has(key(list[next[team]!]!))) next[team]!++;
    return list[next[team]!];
  };
  while (out.length < limit) {
    const nextA = advance(0);
    const nextB = advance(1);
    if (nextA !== undefined && nextB !== undefined && key(nextA) === key(nextB)) {
      taken.add(key(nextA));
      out.push({ item: nextA, team: null });
      continue;
    }
    let team: Team = picks[0]! < picks[1]! || (picks[0] === picks[1] && random() < 0.5) ? 0 : 1;
    let item = advance(team);
    if (item === undefined) {
      team = team === 0 ? 1 : 0;
      item = advance(team);
      if (item === undefined) break;
    }
    taken.add(key(item));
    out.push({ item, team });
    picks[team]!++;
  }
  return out;
}

export interface InterleavingEvidence {
  /** Units where the candidate's results got more clicks. */
  candidateWins: number;
  servingWins: number;
  /** Units with clicks equally split, or none. */
  ties: number;
  /** Two-sided sign test on the wins (ties left out). */
  pValue: number;
}

export function interleavingEvidence(outcomes: readonly InterleavedOutcome[]): InterleavingEvidence {
  let candidateWins = 0;
  let servingWins = 0;
  let ties = 0;
  for (const o of outcomes) {
    if (o.candidate > o.serving) candidateWins++;
    else if (o.serving > o.candidate) servingWins++;
    else ties++;
  }
  return { candidateWins, servingWins, ties, pValue: signTest(candidateWins, servingWins) };
}

/** Two-sided exact binomial test of `a` against `b` successes at p = ½. */
export function signTest(a: number, b: number): number {
  const n = a + b;
  if (n === 0) return 1;
  const k = Math.max(a, b);
  // Σ_{i ≥ k} C(n, i) / 2ⁿ in log space (n reaches thousands).
  let logC = 0; // log C(n, 0)
  const terms: number[] = [];
  for (let i = 0; i <= n; i++) {
    if (i > 0) logC += Math.log((n - i + 1) / i);
    if (i >= k) terms.push(logC - n * Math.LN2);
  }
  const max = Math.max(...terms);
  const tail = Math.exp(max) * terms.reduce((s, t) => s + Math.exp(t - max), 0);
  return Math.min(1, 2 * tail);
}

export interface GuardRule {
  /** Units with a preference needed before any decision. */
  minDecisive: number;
  /** Significance level of the sign test. */
  alpha: number;
  /** Without significance after this many decisive units, the candidate is rejected: not better. */
  maxDecisive: number;
}

/**
 * What the evidence says: promote only a candidate that wins significantly; reject one that loses
 * significantly or fails to win within the budget; otherwise keep testing.
 */
export function guardDecision(e: InterleavingEvidence, rule: GuardRule): 'promote' | 'reject' | 'continue' {
  const decisive = e.candidateWins + e.servingWins;
  if (decisive < rule.minDecisive) return 'continue';
  if (e.pValue < rule.alpha) return e.candidateWins > e.servingWins ? 'promote' : 'reject';
  return decisive >= rule.maxDecisive ? 'reject' : 'continue';
}
