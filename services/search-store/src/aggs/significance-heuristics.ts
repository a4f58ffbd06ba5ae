import { EsError } from '@acme/common';

/**
 * The significance heuristics of significant_terms (ES aggregations/bucket/terms/heuristic/), in
 * doubles as ES computes them: a term's score from its document count in the foreground set
 * (subsetFreq of subsetSize) and in the background (supersetFreq of supersetSize).
 */
export type SignificanceHeuristic =
  | { kind: 'jlh' }
  | { kind: 'percentage' }
  | { kind: 'mutual_information' | 'chi_square'; includeNegatives: boolean; backgroundIsSuperset: boolean }
  | { kind: 'gnd'; backgroundIsSuperset: boolean };

export const HEURISTIC_NAMES = ['jlh', 'percentage', 'mutual_information', 'chi_square', 'gnd'] as const;

// NXYSignificanceHeuristic.SCORE_ERROR_MESSAGE.
const SCORE_ERROR =
  ', does your background filter not include all documents in the bucket? If so and it is intentional, set "background_is_superset": false';

interface Frequencies {
  n00: number;
  n01: number;
  n10: number;
  n11: number;
  n0_: number;
  n1_: number;
  n_0: number;
  n_1: number;
  n: number;
}

/** NXYSignificanceHeuristic.computeNxys: the 2×2 table of (in class, has term). */
function nxys(a: number, aSize: number, b: number, bSize: number, superset: boolean): Frequencies {
  if (superset) {
    if (a > b) throw new EsError('illegal_argument_exception', `subsetFreq > supersetFreq${SCORE_ERROR}`);
    if (aSize > bSize)
      throw new EsError('illegal_argument_exception', `subsetSize > supersetSize${SCORE_ERROR}`);
    if (b - a > bSize - aSize)
      throw new EsError(
        'illegal_argument_exception',
        `supersetFreq - subsetFreq > supersetSize - subsetSize${SCORE_ERROR}`,
      );
    return {
      n00: bSize - b - (aSize - a),
      n01: aSize - a,
      n10: b - a,
      n11: a,
      n0_: bSize - b,
      n1_: b,
      n_0: bSize - aSize,
      n_1: aSize,
      n: bSize,
    };
  }
  return {
    n00: bSize - b,
    n01: aSize - a,
    n10: b,
    n11: a,
    n0_: bSize - b + aSize - a,
    n1_: b + a,
    n_0: bSize,
    n_1: aSize,
    n: bSize + aSize,
  };
}

/** MutualInformation.getMITerm: 0·log(0) taken as 0. */
function miTerm(nxy: number, nx_: number, n_y: number, n: number): number {
  const numerator = Math.abs(n * nxy);
  const denominator = Math.abs(nx_ * n_y);
  const factor = Math.abs(nxy / n);
  if (numerator < 1e-7 && factor < 1e-7) return 0;
  return factor * Math.log(numerator / denominator);
}

export function significanceScore(
  h: SignificanceHeuristic,
  subsetFreq: number,
  subsetSize: number,
  supersetFreq: number,
  supersetSize: number,
): number {
  switch (h.kind) {
    case 'jlh': {
      // JLHScore: absolute change in probability times relative change.
      if (subsetSize === 0 || supersetSize === 0) return 0;
      const sub = subsetFreq / subsetSize;
      const sup = (supersetFreq === 0 ? 1 : supersetFreq) / supersetSize;
      const absolute = sub - sup;
      if (absolute <= 0) return 0;
      return absolute * (sub / sup);
    }
    case 'percentage':
      // PercentageScore: the share of the term's background documents that are in the foreground.
      return supersetFreq === 0 ? 0 : subsetFreq / supersetFreq;
    case 'mutual_information': {
      const f = nxys(subsetFreq, subsetSize, supersetFreq, supersetSize, h.backgroundIsSuperset);
      let score =
        (miTerm(f.n00, f.n0_, f.n_0, f.n) +
          miTerm(f.n01, f.n0_, f.n_1, f.n) +
          miTerm(f.n10, f.n1_, f.n_0, f.n) +
          miTerm(f.n11, f.n1_, f.n_1, f.n)) /
        Math.log(2);
      if (Number.isNaN(score)) score = -Infinity;
      if (!h.includeNegatives && f.n11 / f.n_1 < f.n10 / f.n_0) score = -Infinity;
      return score;
    }
    case 'chi_square': {
      const f = nxys(subsetFreq, subsetSize, supersetFreq, supersetSize, h.backgroundIsSuperset);
      if (!h.includeNegatives && f.n11 / f.n_1 < f.n10 / f.n_0) return -Infinity;
      return (f.n * (f.n11 * f.n00 - f.n01 * f.n10) ** 2) / (f.n_1 * f.n1_ * f.n0_ * f.n_0);
    }
    case 'gnd': {
      // GND (Cilibrasi & Vitányi), inverted so that related terms score high.
      const f = nxys(subsetFreq, subsetSize, supersetFreq, supersetSize, h.backgroundIsSuperset);
      const fx = f.n1_;
      const fy = f.n_1;
      const fxy = f.n11;
      if (fxy === 0) return 0;
      if (fx === fy && fx === fxy) return 1;
      const score =
        (Math.max(Math.log(fx), Math.log(fy)) - Math.log(fxy)) /
        (Math.log(f.n) - Math.min(Math.log(fx), Math.log(fy)));
      return Math.exp(-score);
    }
  }
}
