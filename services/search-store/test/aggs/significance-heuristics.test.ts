import { significanceScore, type SignificanceHeuristic } from '../../src/aggs/significance-heuristics';

/**
 * The heuristics of ES's aggregations/bucket/terms/heuristic/ as a table: (subsetFreq, subsetSize,
 * supersetFreq, supersetSize) → score, worked out by hand from the formulas in doubles.
 */
const jlh: SignificanceHeuristic = { kind: 'jlh' };
const percentage: SignificanceHeuristic = { kind: 'percentage' };
const mi = (includeNegatives = false, backgroundIsSuperset = true): SignificanceHeuristic => ({
  kind: 'mutual_information',
  includeNegatives,
  backgroundIsSuperset,
});
const chi = (includeNegatives = false, backgroundIsSuperset = true): SignificanceHeuristic => ({
  kind: 'chi_square',
  includeNegatives,
  backgroundIsSuperset,
});
const gnd = (backgroundIsSuperset = true): SignificanceHeuristic => ({ kind: 'gnd', backgroundIsSuperset });

describe('significance heuristics', () => {
  it.each([
    ['jlh', jlh, [3, 3, 4, 7], 0.75],
    ['jlh of a term rarer in the foreground', jlh, [1, 3, 6, 7], 0],
    ['jlh with an empty foreground', jlh, [0, 0, 4, 7], 0],
    ['jlh with no background count (taken as 1)', jlh, [2, 4, 0, 10], (0.5 - 0.1) * (0.5 / 0.1)],
    ['percentage', percentage, [2, 3, 3, 7], 2 / 3],
    ['percentage without background documents', percentage, [2, 3, 0, 7], 0],
    ['mutual_information', mi(), [3, 3, 4, 7], 0.5216406363433184],
    ['mutual_information of a negative term', mi(), [1, 3, 4, 7], -Infinity],
    ['chi_square', chi(), [3, 3, 4, 7], 3.9375],
    ['chi_square, background not a superset', chi(false, false), [3, 3, 1, 4], 3.9375],
    ['chi_square of a negative term with include_negatives', chi(true), [1, 3, 4, 7], 1.2152777777777777],
    ['gnd of a perfect co-occurrence', gnd(), [3, 3, 3, 7], 1],
    ['gnd without co-occurrence', gnd(), [0, 3, 3, 7], 0],
  ] as const)('%s', (_name, heuristic, [a, aSize, b, bSize], expected) => {
    const score = significanceScore(heuristic, a, aSize, b, bSize);
    if (Number.isFinite(expected)) expect(score).toBeCloseTo(expected, 14);
    else expect(score).toBe(expected);
  });

  it('refuses a background that is not a superset unless told so', () => {
    expect(() => significanceScore(mi(), 3, 3, 1, 4)).toThrow(/subsetFreq > supersetFreq/);
    expect(() => significanceScore(chi(), 2, 8, 2, 4)).toThrow(/subsetSize > supersetSize/);
    expect(significanceScore(mi(false, false), 3, 3, 1, 4)).toBeGreaterThan(0);
  });
});
