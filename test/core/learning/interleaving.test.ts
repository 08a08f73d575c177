import { describe, expect, it } from 'vitest';
import { guardDecision, interleavingEvidence, signTest, teamDraft } from '../../../src/core/learning/interleaving.js';
import { mulberry32 } from '../../../src/core/random.js';

const letters = (s: string) => s.split('');

describe('team-draft interleaving', () => {
  it('merges two rankings without duplicates, each team placing its best remaining item, up to the limit', () => {
    const random = mulberry32(7);
    for (let trial = 0; trial < 200; trial++) {
      const out = teamDraft(letters('abcdefgh'), letters('hgfedcba'), 6, (x) => x, random);
      expect(out).toHaveLength(6);
      expect(new Set(out.map((o) => o.item)).size).toBe(6);
      // Team sizes never differ by more than one, and each team's picks follow its own order.
      const a = out.filter((o) => o.team === 0).map((o) => o.item);
      const b = out.filter((o) => o.team === 1).map((o) => o.item);
      expect(Math.abs(a.length - b.length)).toBeLessThanOrEqual(1);
      expect(a).toEqual([...a].sort());
      expect(b).toEqual([...b].sort().reverse());
    }
  });

  it('gives each team the first position about half the time', () => {
    const random = mulberry32(3);
    let first = 0;
    for (let i = 0; i < 2000; i++) if (teamDraft(letters('abc'), letters('cba'), 3, (x) => x, random)[0]!.team === 1) first++;
    expect(first / 2000).toBeGreaterThan(0.45);
    expect(first / 2000).toBeLessThan(0.55);
  });

  it('fills from the other list when one runs out, and stops when both do', () => {
    const out = teamDraft(
      letters('ab'),
      letters('abcd'),
      10,
      (x) => x,
      () => 0,
    );
    expect(out.map((o) => o.item).sort()).toEqual(letters('abcd'));
  });

  it('places what both rankings agree on for neither team: identical rankings credit nobody', () => {
    const random = mulberry32(11);
    const out = teamDraft(letters('abcde'), letters('abcde'), 5, (x) => x, random);
    expect(out).toEqual(letters('abcde').map((item) => ({ item, team: null })));
    // A shared top two, then the draft.
    const split = teamDraft(letters('abcde'), letters('abedc'), 5, (x) => x, random);
    expect(split.slice(0, 2)).toEqual([
      { item: 'a', team: null },
      { item: 'b', team: null },
    ]);
    const teams = split.slice(2).map((o) => o.team);
    expect(teams).toContain(0);
    expect(teams).toContain(1);
  });
});

describe('the sign test and the guard', () => {
  it('matches exact binomial tail values', () => {
    expect(signTest(5, 5)).toBe(1);
    expect(signTest(0, 0)).toBe(1);
    // P(X ≥ 9 | n = 10, p = ½) = 11/1024; two-sided 22/1024.
    expect(signTest(9, 1)).toBeCloseTo(22 / 1024, 10);
    expect(signTest(1, 9)).toBeCloseTo(22 / 1024, 10);
    // Large n stays finite: 1,100 against 900 is p ≈ 8e-6.
    const p = signTest(1100, 900);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-4);
  });

  it('counts wins, losses and ties per unit', () => {
    expect(
      interleavingEvidence([
        { serving: 1, candidate: 0 },
        { serving: 0, candidate: 2 },
        { serving: 1, candidate: 1 },
        { serving: 0, candidate: 0 },
      ]),
    ).toMatchObject({ candidateWins: 1, servingWins: 1, ties: 2, pValue: 1 });
  });

  it('promotes only a significant winner with enough evidence, rejects a significant loser or an undecided one past the budget', () => {
    const rule = { minDecisive: 100, alpha: 0.05, maxDecisive: 1000 };
    const ev = (candidateWins: number, servingWins: number) => ({ candidateWins, servingWins, ties: 0, pValue: signTest(candidateWins, servingWins) });
    expect(guardDecision(ev(9, 1), rule)).toBe('continue'); // significant but too few
    expect(guardDecision(ev(70, 30), rule)).toBe('promote');
    expect(guardDecision(ev(30, 70), rule)).toBe('reject');
    expect(guardDecision(ev(52, 48), rule)).toBe('continue');
    expect(guardDecision(ev(505, 495), rule)).toBe('reject');
  });
});
