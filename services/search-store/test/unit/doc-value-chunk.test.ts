import { chunkEntries, decodeChunk, encodeChunk, type ChunkEntry } from '../../src/index/doc-value-chunk';
import { compareCodePoints } from '../../src/aggs/columnar-terms';

function roundTrip(entries: ChunkEntry[]): { back: ChunkEntry[]; encoded: ReturnType<typeof encodeChunk> } {
  const encoded = encodeChunk(entries);
  const back = chunkEntries(
    decodeChunk({
      chunk: 7,
      num_docs: encoded.numDocs,
      nums: encoded.nums,
      kw_docs: encoded.kwDocs,
      kw_ords: encoded.kwOrds,
      dict: encoded.dict,
    }),
  );
  return { back, encoded };
}

const key = (e: ChunkEntry) =>
  `${e.doc} ${e.num === null ? `k${e.kw}` : `n${Object.is(e.num, -0) ? 0 : e.num}`}`;

describe('doc value chunks (migration 0027)', () => {
  it('packs integers in int4 and anything else in float8, sorted by doc and value', () => {
    const ints = [
      { doc: 3, num: 2 ** 31 - 1, kw: null },
      { doc: 0, num: -(2 ** 31), kw: null },
      { doc: 3, num: 5, kw: null },
      { doc: 3, num: 5, kw: null },
    ];
    const small = roundTrip(ints);
    expect(small.encoded.nums!.byteLength).toBe(16);
    expect(small.back.map(key)).toEqual(['0 n-2147483648', '3 n5', '3 n5', '3 n2147483647']);
    for (const odd of [2 ** 31, 0.25, -1e300, 2 ** 53]) {
      const wide = roundTrip([...ints, { doc: 9, num: odd, kw: null }]);
      expect(wide.encoded.nums!.byteLength).toBe(40);
      expect(wide.back.map(key)).toContain(`9 n${odd}`);
    }
  });

  it('numbers keywords by a byte-ordered dictionary, int2 ordinals below 32,768 keys', () => {
    const few = roundTrip([
      { doc: 1, num: null, kw: '😀' },
      { doc: 1, num: null, kw: '\ue000' },
      { doc: 0, num: null, kw: 'b' },
    ]);
    expect(few.encoded.kwOrds!.byteLength).toBe(6);
    expect(few.back.map(key)).toEqual(['0 kb', '1 k\ue000', '1 k😀']);
    const many = Array.from({ length: 40_000 }, (_v, i) => ({ doc: i % 4096, num: null, kw: `key-${i}` }));
    const wide = roundTrip(many);
    expect(wide.encoded.kwOrds!.byteLength).toBe(160_000);
    expect(wide.back.map(key).sort()).toEqual(many.map(key).sort());
  });

  it('orders strings as UTF-8 bytes do', () => {
    const words = ['a', 'ab', 'é', '\ue000', '\uffff', '😀', '𝔸', 'Z', ''];
    const byBytes = [...words].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...words].sort(compareCodePoints)).toEqual(byBytes);
  });
});
