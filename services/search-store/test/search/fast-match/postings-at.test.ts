import { PgArrayError } from '../../../src/search/fast-match/parse-pg-int-array';
import { postingsAt } from '../../../src/search/fast-match/postings-at';
import { readBlocks, type PackedBlock } from '../../../src/search/fast-match/read-packed-blocks';

/** A block as Postgres prints it: each column big-endian at its width, in bytea hex. */
function block(base: number, postings: [offset: number, freq: number, norm: number][]): PackedBlock {
  const hex = (values: number[], width: number): string =>
    '\\x' + values.map((v) => v.toString(16).padStart(2 * width, '0')).join('');
  const width = (max: number): number => (max < 256 ? 1 : max < 65536 ? 2 : max < 16777216 ? 3 : 4);
  const offsets = postings.map((p) => p[0]);
  const freqs = postings.map((p) => p[1]);
  return {
    base,
    offsets: hex(offsets, width(Math.max(...offsets))),
    freqs: hex(freqs, width(Math.max(...freqs))),
    norms: hex(
      postings.map((p) => p[2]),
      1,
    ),
    maxFreq: Math.max(...freqs),
    minNorm: Math.min(...postings.map((p) => p[2])),
  };
}

describe('postingsAt finds a term’s postings at candidate documents in its packed blocks', () => {
  // Offsets of widths 1, 2 and 3, freqs of widths 1 and 2, blocks out of order.
  const blocks = (): PackedBlock[] => [
    block(1000, [
      [0, 1, 7],
      [300, 2, 9],
      [70000, 300, 11],
    ]),
    block(10, [
      [0, 3, 1],
      [5, 1, 2],
      [200, 4, 3],
    ]),
    block(500, [[1, 1, 200]]),
  ];

  it('answers the candidates the term holds, with their freqs and norms, as parsing every block does', () => {
    const candidates = Float64Array.from([1, 10, 11, 15, 210, 499, 501, 1000, 1299, 1300, 71000, 71001, 9e6]);
    const found = postingsAt(99, blocks(), candidates);
    expect(found.docFreq).toBe(99);
    expect([...found.docs]).toEqual([10, 15, 210, 501, 1000, 1300, 71000]);
    expect([...found.freqs]).toEqual([3, 1, 4, 1, 1, 2, 300]);
    expect([...found.norms]).toEqual([1, 2, 3, 200, 7, 9, 11]);
    expect(found.blocks).toBeUndefined();
    const whole = readBlocks(7, blocks());
    const at = [...found.docs].map((d) => whole.docs.indexOf(d));
    expect(at.map((i) => whole.freqs[i])).toEqual([...found.freqs]);
    expect(at.map((i) => whole.norms[i])).toEqual([...found.norms]);
  });

  it('answers nothing for no candidates or no blocks', () => {
    expect(postingsAt(3, blocks(), new Float64Array(0)).docs).toHaveLength(0);
    expect(postingsAt(0, [], Float64Array.from([1, 2])).docs).toHaveLength(0);
  });

  it('refuses a malformed block rather than guess', () => {
    const bad = blocks();
    bad[1] = { ...bad[1]!, offsets: '\\x00g5c8' };
    expect(() => postingsAt(9, bad, Float64Array.from([15]))).toThrow(PgArrayError);
    const short = blocks();
    short[1] = { ...short[1]!, freqs: '\\x0301' };
    expect(() => postingsAt(9, short, Float64Array.from([15]))).toThrow(PgArrayError);
  });
});
