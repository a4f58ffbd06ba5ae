import { blockPeaks } from '../../../src/search/fast-match/block-peaks';
import { packPostings, unpackPostings } from '../../../src/search/fast-match/packed-postings';
import type { TermPostings } from '../../../src/search/fast-match/score-match-plan';
import { normInverseCache, termScore } from '../../../src/query/score/bm25';
import { seededRandom as random } from '../../support/seeded-random';

/** A block's peak impact is its best posting's: the bound block-max pruning uses (block-peaks.ts). */
function list(rnd: () => number, n: number): TermPostings {
  const docs = Float64Array.from({ length: n }, (_, i) => 3 * i + 1);
  const freqs = Int32Array.from(docs, () => 1 + Math.floor(rnd() ** 4 * 20));
  const norms = Uint8Array.from(docs, () => 20 + Math.floor(rnd() * 200));
  const blocks = Math.ceil(n / 128);
  const ends = Int32Array.from({ length: blocks }, (_, b) => Math.min(n, (b + 1) * 128));
  return {
    docFreq: n,
    docs,
    freqs,
    norms,
    blocks: { ends, maxFreq: new Int32Array(blocks), minNorm: new Uint8Array(blocks) },
  };
}

describe('blockPeaks', () => {
  const rnd = random(77);
  const postings = list(rnd, 1000);

  it.each([12, 90, 400])('gives each block the best term score of its postings (avgdl %d)', (avgdl) => {
    const normInverse = Float32Array.from(normInverseCache(avgdl));
    const peaks = blockPeaks(postings, normInverse);
    expect(peaks).toHaveLength(8);
    for (const w of [0.3, 2.2, 7]) {
      let start = 0;
      postings.blocks!.ends.forEach((end, b) => {
        let best = -Infinity;
        for (let p = start; p < end; p++)
          best = Math.max(best, termScore(w, postings.freqs[p]!, normInverse[postings.norms[p]!]!));
        const f = Math.fround;
        expect(f(w - f(w / f(1 + peaks[b]!)))).toBe(best);
        start = end;
      });
    }
  });

  it('is kept while the length table stands, and computed again when it changes', () => {
    const table = Float32Array.from(normInverseCache(50));
    const once = blockPeaks(postings, table);
    expect(blockPeaks(postings, Float32Array.from(table))).toBe(once);
    const other = blockPeaks(postings, Float32Array.from(normInverseCache(51)));
    expect(other).not.toBe(once);
    expect(other).not.toEqual(once);
  });

  it('is kept across the copies of one list the postings cache unpacks, not for the list without its blocks', () => {
    const table = Float32Array.from(normInverseCache(52));
    const packed = packPostings(postings)!;
    const first = blockPeaks(unpackPostings(packed), table);
    expect(blockPeaks(unpackPostings(packed), table)).toBe(first);
    expect(first).toEqual(blockPeaks({ ...postings, norms: Uint8Array.from(postings.norms) }, table));
    const oneBlock = blockPeaks({ ...unpackPostings(packed), blocks: undefined }, table);
    expect(oneBlock.length).toBe(1);
    expect(oneBlock[0]).toBe(Math.max(...first));
  });

  it('treats a list without blocks as one block', () => {
    const whole = { ...postings, blocks: undefined };
    const table = Float32Array.from(normInverseCache(50));
    const peaks = blockPeaks(whole, table);
    expect(peaks).toHaveLength(1);
    expect(peaks[0]).toBe(Math.max(...blockPeaks(postings, table)));
  });
});
