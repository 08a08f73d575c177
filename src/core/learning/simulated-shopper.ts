/**
 * The simulated shopper of `npm run simulate` (tools/relevance/simulate.ts; docs/relevance.md): one
 * person with one request, looking down a result list the way people do. Position bias: the result
 * at rank k is looked at with probability (1/k)^η, the position-based model position-bias.ts
 * estimates. A looked-at result is clicked with a probability that grows with its human relevance
 * grade, plus `noise` (people click irrelevant results too). The best products sometimes sell; now
 * and then the person votes on a result they looked at.
 */

export interface UserModel {
  /** Position-bias exponent: rank k is examined with probability (1/k)^η. */
  eta: number;
  /** Click probability of an examined result with grade 0 (and the floor of every grade). */
  noise: number;
  /** The set's highest grade: click probability rises linearly from `noise` to 1 at it. */
  maxGrade: number;
  /** Probability that a click on a top-grade product converts. */
  conversionRate: number;
  /** Probability of a feedback vote on an examined result (relevant = grade ≥ maxGrade − 1). */
  voteRate: number;
}

export interface Shown {
  productId: string;
  /** The human grade, or null when the set never judged the product (treated as 0). */
  grade: number | null;
}

export interface Reaction {
  /** 0-based indices into the shown list. */
  examined: number[];
  clicked: number[];
  converted: number[];
  votes: { index: number; relevant: boolean }[];
}

export const examineProbability = (rank: number, eta: number): number => (1 / rank) ** eta;

export function clickProbability(grade: number | null, model: Pick<UserModel, 'noise' | 'maxGrade'>): number {
  const g = Math.max(0, Math.min(model.maxGrade, grade ?? 0));
  return model.noise + (1 - model.noise) * (g / model.maxGrade);
}

/** One person's reaction to one result list, drawn with `random` (uniform [0, 1)). */
export function react(shown: readonly Shown[], model: UserModel, random: () => number): Reaction {
  const reaction: Reaction = { examined: [], clicked: [], converted: [], votes: [] };
  shown.forEach((s, i) => {
    if (random() >= examineProbability(i + 1, model.eta)) return;
    reaction.examined.push(i);
    if (random() < clickProbability(s.grade, model)) {
      reaction.clicked.push(i);
      if ((s.grade ?? 0) >= model.maxGrade && random() < model.conversionRate) reaction.converted.push(i);
    }
    if (random() < model.voteRate) reaction.votes.push({ index: i, relevant: (s.grade ?? 0) >= model.maxGrade - 1 });
  });
  return reaction;
}
