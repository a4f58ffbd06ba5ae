import fc from 'fast-check';
import { packedBytes, packPostings, unpackPostings } from '../../src/search/fast-match/packed-postings';
import type { TermPostings } from '../../src/search/fast-match/score-match-plan';

/** Gaps of every width the packing uses (1 to 4 bytes), mixed within a list. */
const gap = fc.oneof(
  fc.integer({ min: 1, max: 255 }),
  fc.integer({ min: 256, max: 65_535 }),
  fc.integer({ min: 65_536, max: 2 ** 24 - 1 }),
  fc.integer({ min: 2 ** 24, max: 2 ** 32 - 1 }),
);
const freq = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 256, max: 2 ** 31 - 1 }));

const list = fc
  .record({
    first: fc.integer({ min: 0, max: 2 ** 40 }),
    postings: fc.array(fc.tuple(gap, freq, fc.integer({ min: 0, max: 255 })), { maxLength: 700 }),
    blocks: fc.boolean(),
    extra: fc.nat(5),
  })
  .map(({ first, postings, blocks, extra }): TermPostings => {
    let doc = first;
    const docs = postings.map(([g], i) => (i === 0 ? doc : (doc += g)));
    const n = docs.length;
    return {
      docFreq: n + extra,
      docs: Float64Array.from(docs),
      freqs: Int32Array.from(postings, ([, f]) => f),
      norms: Uint8Array.from(postings, ([, , m]) => m),
      ...(blocks
        ? {
            blocks: {
              ends: Int32Array.from({ length: Math.ceil(n / 128) }, (_, b) => Math.min(n, (b + 1) * 128)),
              maxFreq: new Int32Array(Math.ceil(n / 128)).fill(7),
              minNorm: new Uint8Array(Math.ceil(n / 128)).fill(3),
            },
          }
        : {}),
    };
  });

const plain = (p: TermPostings) => ({
  docFreq: p.docFreq,
  docs: [...p.docs],
  freqs: [...p.freqs],
  norms: [...p.norms],
  blocks: p.blocks && {
    ends: [...p.blocks.ends],
    maxFreq: [...p.blocks.maxFreq],
    minNorm: [...p.blocks.minNorm],
  },
});

describe('packPostings / unpackPostings', () => {
  it('give back every doc key, freq, norm and block of any list, at no more than its decoded size', () => {
    fc.assert(
      fc.property(list, (p) => {
        const packed = packPostings(p)!;
        expect(packed).toBeDefined();
        expect(plain(unpackPostings(packed))).toEqual(plain(p));
        // The widest case (4-byte gaps and freqs) takes 9 bytes a posting and 9 a chunk of 128,
        // under the 13 of a decoded posting.
        const chunks = Math.ceil(p.docs.length / 128);
        expect(packedBytes(packed)).toBeLessThanOrEqual(
          9 * p.docs.length + 9 * chunks + (p.blocks ? 9 * p.blocks.ends.length : 0),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('packs a common term (small gaps and freqs) to about 3 bytes a posting', () => {
    const n = 100_000;
    const docs = Float64Array.from({ length: n }, (_, i) => 5_000_000 + i * 10 + (i % 7));
    const p: TermPostings = {
      docFreq: n,
      docs,
      freqs: Int32Array.from({ length: n }, (_, i) => 1 + (i % 3)),
      norms: Uint8Array.from({ length: n }, (_, i) => i % 200),
    };
    const packed = packPostings(p)!;
    // 782 chunks of 9 bytes, then one byte each for 99,218 gaps, 100,000 freqs and 100,000 norms.
    expect(packedBytes(packed)).toBe(782 * 9 + 99_218 + 2 * 100_000);
    expect([...unpackPostings(packed).docs.subarray(99_990)]).toEqual([...docs.subarray(99_990)]);
  });

  it('keeps decoded what it cannot pack: keys out of order, repeated, fractional or 2^32 apart, and negative freqs', () => {
    const of = (docs: number[], freqs = docs.map(() => 1)): TermPostings => ({
      docFreq: docs.length,
      docs: Float64Array.from(docs),
      freqs: Int32Array.from(freqs),
      norms: new Uint8Array(docs.length),
    });
    expect(packPostings(of([5, 3]))).toBeUndefined();
    expect(packPostings(of([5, 5]))).toBeUndefined();
    expect(packPostings(of([5, 6.5]))).toBeUndefined();
    expect(packPostings(of([0.5, 2]))).toBeUndefined();
    expect(packPostings(of([1, 1 + 2 ** 32]))).toBeUndefined();
    expect(packPostings(of([1, 2], [1, -1]))).toBeUndefined();
    // The same lists a step inside the limits pack.
    expect(packPostings(of([1, 2 ** 32]))).toBeDefined();
    expect(packPostings(of([]))).toBeDefined();
    expect(unpackPostings(packPostings(of([]))!).docs.length).toBe(0);
  });
});
