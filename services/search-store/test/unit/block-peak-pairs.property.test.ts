import fc from 'fast-check';
import { forEachPeakPair, peakPairs, PEAK_PAIR_BYTES } from '../../src/index/block-peak-pairs';
import { normInverseCache, termScore, termWeight, idf, avgFieldLength } from '../../src/query/score/bm25';

/** The Pareto front by brute force: pairs no other posting dominates, deduplicated, ascending freq. */
function bruteFront(freqs: number[], norms: number[]): Array<[number, number]> {
  const pairs = freqs.map((f, i): [number, number] => [f, norms[i]!]);
  const kept = pairs.filter(([f, n]) => !pairs.some(([g, m]) => g >= f && m <= n && (g > f || m < n)));
  const unique = [...new Map(kept.map((p) => [`${p[0]}/${p[1]}`, p])).values()];
  return unique.sort((a, b) => a[0] - b[0]);
}

function pairsOf(peaks: Uint8Array, maxFreq: number, minNorm: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  forEachPeakPair(peaks, maxFreq, minNorm, (f, n) => out.push([f, n]));
  return out;
}

const block = fc.integer({ min: 1, max: 128 }).chain((n) =>
  fc.tuple(
    fc.array(fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 2 ** 31 - 1 })), {
      minLength: n,
      maxLength: n,
    }),
    fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 100, max: 110 })), {
      minLength: n,
      maxLength: n,
    }),
  ),
);

describe('peakPairs', () => {
  it('is the brute-force Pareto front of random blocks (empty when one pair)', () => {
    fc.assert(
      fc.property(block, ([freqs, norms]) => {
        const peaks = peakPairs(freqs, norms, 0, freqs.length);
        const front = bruteFront(freqs, norms);
        const maxFreq = Math.max(...freqs);
        const minNorm = Math.min(...norms);
        expect(peaks.length).toBe(front.length === 1 ? 0 : front.length * PEAK_PAIR_BYTES);
        expect(pairsOf(peaks, maxFreq, minNorm)).toEqual(front);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads only [from, end) and leaves no state behind between calls', () => {
    const freqs = [9, 1, 3, 2, 9];
    const norms = [0, 50, 40, 30, 0];
    expect(pairsOf(peakPairs(freqs, norms, 1, 4), 3, 30)).toEqual([
      [2, 30],
      [3, 40],
    ]);
    // A block whose one pair dominates it is empty, then the next call starts clean.
    expect(peakPairs([4, 4], [7, 7], 0, 2).length).toBe(0);
    expect(pairsOf(peakPairs([1, 2], [7, 9], 0, 2), 2, 7)).toEqual([
      [1, 7],
      [2, 9],
    ]);
    expect(() => peakPairs(freqs, norms, 2, 2)).toThrow(RangeError);
  });

  it('writes each pair as a big-endian uint32 freq and a norm byte', () => {
    const peaks = peakPairs([0x01020304, 1], [200, 3], 0, 2);
    expect(Array.from(peaks)).toEqual([0, 0, 0, 1, 3, 1, 2, 3, 4, 200]);
    expect(pairsOf(peaks, 0x01020304, 3)).toEqual([
      [1, 3],
      [0x01020304, 200],
    ]);
    expect(() => forEachPeakPair(new Uint8Array(4), 1, 1, () => undefined)).toThrow(/multiple of 5/);
  });

  it("bounds every posting's BM25 score by its best pair, under any statistics", () => {
    fc.assert(
      fc.property(
        block,
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1000 }),
        ([freqs, norms], docCount, avgLength) => {
          const weight = termWeight(1, idf(Math.min(docCount, freqs.length), docCount));
          const inverse = normInverseCache(
            avgFieldLength({ docCount, sumTotalTermFreq: docCount * avgLength }),
          );
          let peak = -Infinity;
          forEachPeakPair(
            peakPairs(freqs, norms, 0, freqs.length),
            Math.max(...freqs),
            Math.min(...norms),
            (f, n) => {
              peak = Math.max(peak, termScore(weight, f, inverse[n]!));
            },
          );
          const best = Math.max(...freqs.map((f, i) => termScore(weight, f, inverse[norms[i]!]!)));
          expect(peak).toBe(best);
        },
      ),
      { numRuns: 500 },
    );
  });
});
