import { BLOCK_SIZE, buildBlocks, tailExtension, tailRoom, type Posting } from '../../src/index/build-blocks';

const postings = (keys: number[]): Posting[] =>
  keys.map((docKey, i) => ({ docKey, freq: (i % 3) + 1, norm: 40 - i }));

describe('tailExtension', () => {
  it('appends the first postings as offsets from the tail base, with their freqs, norms and impacts', () => {
    const list = postings([105, 107, 120, 300]);
    expect(tailExtension('42', 100, list, 3)).toEqual({
      termId: '42',
      base: 100,
      last: 120,
      offsets: '{5,7,20}',
      freqs: '{1,2,3}',
      norms: '{40,39,38}',
      maxFreq: 3,
      minNorm: 38,
    });
  });

  it('takes exactly what tailRoom allows, the rest starting new blocks', () => {
    const list = postings(Array.from({ length: 10 }, (_, i) => 1000 + i));
    const room = tailRoom(900, BLOCK_SIZE - 4, list);
    expect(room).toBe(4);
    const ext = tailExtension('7', 900, list, room);
    expect(ext.offsets).toBe('{100,101,102,103}');
    expect(ext.last).toBe(1003);
    expect(buildBlocks(list.slice(room)).map((b) => b.baseDocKey)).toEqual([1004]);
  });

  it('gives the same columns as a block built from the same postings', () => {
    const list = postings([8, 9, 15, 16, 40]);
    const [block] = buildBlocks(list);
    const ext = tailExtension('1', block!.baseDocKey, list, list.length);
    expect(ext.offsets).toBe(`{${block!.offsets.join(',')}}`);
    expect(ext.freqs).toBe(`{${block!.freqs.join(',')}}`);
    expect(ext.norms).toBe(`{${block!.norms.join(',')}}`);
    expect([ext.maxFreq, ext.minNorm, ext.last]).toEqual([block!.maxFreq, block!.minNorm, block!.lastDocKey]);
  });
});
