import {
  avgFieldLength,
  formatFloat,
  idf,
  idfSum,
  normInverseCache,
  termScore,
  termWeight,
} from '../../src/query/score/bm25';
import { byte4ToInt, intToByte4 } from '../../src/index/small-float';

describe('BM25 as Elasticsearch scores it (float32)', () => {
  it('reproduces the worked example of API-NOTES §A2.1: 1.135697', () => {
    // 3 docs with field lengths 2, 3, 4; "fox" once in the 2-token doc.
    const avgdl = avgFieldLength({ docCount: 3, sumTotalTermFreq: 9 });
    const weight = termWeight(1, idf(1, 3));
    const score = termScore(weight, 1, normInverseCache(avgdl)[intToByte4(2)]!);
    expect(formatFloat(idf(1, 3))).toBe(0.98082924);
    expect(formatFloat(normInverseCache(avgdl)[2]!)).toBe(1.111111);
    expect(formatFloat(score)).toBe(1.135697);
  });

  it('scores a single-valued keyword term as exactly idf', () => {
    const avgdl = avgFieldLength({ docCount: 5, sumTotalTermFreq: 5 });
    const score = termScore(termWeight(1, idf(2, 5)), 1, normInverseCache(avgdl)[1]!);
    expect(score).toBe(idf(2, 5));
    expect(formatFloat(idf(1, 3))).toBe(0.98082924);
    expect(formatFloat(idf(2, 5))).toBe(0.87546873);
  });

  it('applies the boost inside the weight', () => {
    const cache = normInverseCache(3);
    expect(formatFloat(termScore(termWeight(2, idf(1, 3)), 1, cache[2]!))).toBe(2.271394);
  });

  it('sums phrase idfs as floats in double', () => {
    expect(idfSum([1, 1], 3)).toBe(Math.fround(idf(1, 3) * 2));
  });

  it.each([
    [0, 0],
    [1, 1],
    [23, 23],
    [24, 24],
    [40, 40],
    [41, 40],
    [47, 46],
    [63, 60],
    [100, 96],
    [255, 248],
    [300, 280],
    [500, 472],
    [1000, 984],
    [10000, 9240],
  ])('encodes field length %i to a byte decoding to %i', (length, decoded) => {
    const b = intToByte4(length);
    expect(b).toBeLessThanOrEqual(255);
    expect(byte4ToInt(b)).toBe(decoded);
  });

  it('prints floats the way Java does', () => {
    expect(formatFloat(Math.fround(0.2876821))).toBe(0.2876821);
    expect(formatFloat(Math.fround(2.2))).toBe(2.2);
  });
});
