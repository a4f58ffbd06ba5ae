import { PostingsCache } from '../../../src/search/fast-match/postings-cache';
import { contentBytes, directoryBytes, type TermBlocks } from '../../../src/search/fast-match/term-blocks';

/** A term of `blocks` blocks of `size` documents each, none read yet. */
function term(termId: string, blocks: number, size = 128, version = '1'): TermBlocks {
  const base = Float64Array.from({ length: blocks }, (_, b) => 1 + b * size);
  return {
    termId,
    version,
    docFreq: blocks * size,
    base,
    last: base.map((b) => b + size - 1),
    maxFreq: new Int32Array(blocks).fill(1),
    minNorm: new Uint8Array(blocks).fill(10),
    contents: new Array(blocks).fill(undefined),
    loaded: 0,
  };
}

const block = (from: number, size = 128) => ({
  docs: Float64Array.from({ length: size }, (_, i) => from + i),
  freqs: new Int32Array(size).fill(1),
  norms: new Uint8Array(size).fill(10),
});

describe('PostingsCache', () => {
  it('keeps directories, absent terms and field statistics per index, and the blocks read', () => {
    const cache = new PostingsCache(1 << 20);
    expect(cache.term('1', 'body', 'alpha')).toBeUndefined();
    const alpha = term('7', 3);
    cache.setTerm('1', 'body', 'alpha', alpha);
    cache.setTerm('1', 'body', 'gamma', null);
    cache.setField('1', 'body', { docCount: 10, sumTotalTermFreq: 90 });
    expect(cache.term('1', 'body', 'alpha')).toBe(alpha);
    // Read and not found: kept as absent.
    expect(cache.term('1', 'body', 'gamma')).toBeNull();
    expect(cache.field('1', 'body')).toEqual({ docCount: 10, sumTotalTermFreq: 90 });
    // Another index shares nothing.
    expect(cache.term('2', 'body', 'alpha')).toBeUndefined();
    expect(cache.field('2', 'body')).toBeUndefined();
    const before = cache.size.bytes;
    cache.addBlock('1', 'body', 'alpha', alpha, 1, block(129));
    expect(alpha.loaded).toBe(1);
    expect(alpha.contents[1]!.docs[0]).toBe(129);
    expect(cache.size.bytes).toBe(before + contentBytes(block(129)));
    // Adding a block twice counts it once.
    cache.addBlock('1', 'body', 'alpha', alpha, 1, block(129));
    expect(cache.size.bytes).toBe(before + contentBytes(block(129)));
    cache.forget('1', 'body', 'alpha');
    expect(cache.term('1', 'body', 'alpha')).toBeUndefined();
  });

  it('evicts the least recently used terms past its byte budget, and keeps nothing when turned off', () => {
    const each = directoryBytes(10) + 2 * contentBytes(block(1));
    const cache = new PostingsCache(each * 4 + 100);
    const entries = ['one', 'two', 'three', 'four'].map((word, i) => {
      const entry = term(String(i), 10);
      cache.setTerm('1', 'body', word, entry);
      cache.addBlock('1', 'body', word, entry, 0, block(1));
      cache.addBlock('1', 'body', word, entry, 1, block(129));
      return entry;
    });
    expect(cache.size).toEqual({ terms: 4, bytes: each * 4 });
    expect(cache.term('1', 'body', 'one')).toBe(entries[0]); // now the most recently used
    const five = term('5', 10);
    cache.setTerm('1', 'body', 'five', five);
    cache.addBlock('1', 'body', 'five', five, 0, block(1));
    cache.addBlock('1', 'body', 'five', five, 1, block(129));
    expect(cache.term('1', 'body', 'two')).toBeUndefined();
    for (const word of ['one', 'three', 'four', 'five']) expect(cache.term('1', 'body', word)).toBeDefined();
    expect(cache.size.bytes).toBeLessThanOrEqual(each * 4 + 100);
    // A term grown over a quarter of the budget leaves the cache; the search holding it keeps it.
    const huge = term('9', 10);
    cache.setTerm('1', 'body', 'huge', huge);
    for (let b = 0; b < 10; b++) cache.addBlock('1', 'body', 'huge', huge, b, block(1 + b * 128));
    expect(cache.term('1', 'body', 'huge')).toBeUndefined();
    expect(huge.loaded).toBe(10);
    expect(cache.size.bytes).toBeLessThanOrEqual(each * 4 + 100);

    const off = new PostingsCache(0);
    off.setTerm('1', 'body', 'one', term('1', 1));
    off.setField('1', 'body', { docCount: 1, sumTotalTermFreq: 1 });
    expect(off.enabled).toBe(false);
    expect(off.term('1', 'body', 'one')).toBeUndefined();
    expect(off.field('1', 'body')).toBeUndefined();
  });

  it('replaces a term read again at a new version', () => {
    const cache = new PostingsCache(1 << 20);
    cache.setTerm('1', 'body', 'alpha', term('7', 2, 128, '1'));
    cache.setTerm('1', 'body', 'alpha', term('7', 3, 128, '2'));
    expect(cache.term('1', 'body', 'alpha')!.version).toBe('2');
    expect(cache.size).toEqual({ terms: 1, bytes: directoryBytes(3) });
  });
});
