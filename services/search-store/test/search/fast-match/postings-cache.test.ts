import { openMappingReaders } from '../../../src/search/fast-match/open-mapping-readers';
import { planFastMatch, type FastMatchPlan } from '../../../src/search/fast-match/plan-fast-match';
import { PostingsCache, type TermVersion } from '../../../src/search/fast-match/postings-cache';
import type { MatchPostings, TermPostings } from '../../../src/search/fast-match/score-match-plan';
import { parseSearchRequest } from '../../../src/query/parse/search-request';

const reader = (indexId: string) =>
  openMappingReaders([
    {
      index_id: indexId,
      name: `i${indexId}`,
      uuid: 'u',
      settings: {},
      mappings: { properties: { body: { type: 'text' }, title: { type: 'text' } } },
    },
  ])[0]!;

const plan = (query: string, indexId = '1'): FastMatchPlan =>
  planFastMatch(reader(indexId), parseSearchRequest({ query: { match: { body: query } } }, {}))!;

const list = (docs: number[], docFreq = docs.length): TermPostings => ({
  docFreq,
  docs: Float64Array.from(docs),
  freqs: Int32Array.from(docs, () => 1),
  norms: Uint8Array.from(docs, () => 10),
});

const read = (terms: Record<string, TermPostings>): MatchPostings => ({
  fields: new Map([['body', { docCount: 10, sumTotalTermFreq: 90 }]]),
  terms: new Map(Object.entries(terms).map(([t, p]) => [`body\u0000${t}`, p])),
});

const versions = (entries: Record<string, [string, string]>): Map<string, TermVersion> =>
  new Map(Object.entries(entries).map(([t, [termId, version]]) => [`body\u0000${t}`, { termId, version }]));

describe('PostingsCache', () => {
  it('answers a plan only when it holds the field statistics and every term, absent terms included', () => {
    const cache = new PostingsCache(1 << 20);
    const p = plan('alpha beta gamma');
    expect(cache.lookup(p)).toBeUndefined();
    cache.remember(p, {
      ...read({ alpha: list([1, 2]), beta: list([2, 3]) }),
      versions: versions({ alpha: ['7', '100'], beta: ['8', '101'] }),
    });
    const hit = cache.lookup(p)!;
    expect([...hit.postings.terms.keys()]).toEqual(['body\u0000alpha', 'body\u0000beta']);
    expect(hit.versions.get('body\u0000beta')).toEqual({ termId: '8', version: '101' });
    expect(hit.postings.fields.get('body')).toEqual({ docCount: 10, sumTotalTermFreq: 90 });
    // gamma was read and not found: kept as absent, so the plan is answered.
    expect(hit.versions.has('body\u0000gamma')).toBe(false);
    // Another index with the same term ids in its dictionary shares nothing.
    expect(cache.lookup(plan('alpha beta gamma', '2'))).toBeUndefined();
    expect(cache.lookup(plan('alpha delta'))).toBeUndefined();
  });

  it('keeps no term whose postings came back partial (a conjunction sends only some blocks)', () => {
    const cache = new PostingsCache(1 << 20);
    const p = plan('alpha beta');
    cache.remember(p, {
      ...read({ alpha: list([1, 2]), beta: list([2], 40) }),
      versions: versions({ alpha: ['7', '1'], beta: ['8', '1'] }),
    });
    expect(cache.lookup(p)).toBeUndefined();
    expect(cache.lookup(plan('alpha'))).toBeDefined();
  });

  it('evicts the least recently used terms past its byte budget, and nothing when turned off', () => {
    const big = (n: number) => list(Array.from({ length: n }, (_, i) => i + 1));
    // 1,300 postings packed (packed-postings.ts): 11 chunks of an 8-byte first doc and a width byte,
    // 1,289 one-byte gaps (a chunk's first doc has none), 1,300 one-byte freqs and norms: 3,988
    // bytes, 4,148 with the entry's overhead (13 bytes a posting decoded: 16,900). Four fit in 17,000.
    const cache = new PostingsCache(17_000);
    for (const [i, word] of ['one', 'two', 'three', 'four'].entries())
      cache.remember(plan(word), {
        ...read({ [word]: big(1300) }),
        versions: versions({ [word]: [String(i), '1'] }),
      });
    expect(cache.size).toEqual({ terms: 4, bytes: 16_592 });
    expect(cache.lookup(plan('one'))).toBeDefined(); // now the most recently used
    cache.remember(plan('five'), { ...read({ five: big(1300) }), versions: versions({ five: ['5', '1'] }) });
    expect(cache.lookup(plan('two'))).toBeUndefined();
    for (const word of ['one', 'three', 'four', 'five']) expect(cache.lookup(plan(word))).toBeDefined();
    expect(cache.size.bytes).toBeLessThanOrEqual(17_000);
    expect([...cache.lookup(plan('five'))!.postings.terms.get('body\u0000five')!.docs]).toEqual(
      Array.from({ length: 1300 }, (_, i) => i + 1),
    );
    // A list over a quarter of the budget is never kept.
    cache.remember(plan('huge'), { ...read({ huge: big(5000) }), versions: versions({ huge: ['4', '1'] }) });
    expect(cache.lookup(plan('huge'))).toBeUndefined();

    const off = new PostingsCache(0);
    off.remember(plan('one'), { ...read({ one: list([1]) }), versions: versions({ one: ['1', '1'] }) });
    expect(off.enabled).toBe(false);
    expect(off.lookup(plan('one'))).toBeUndefined();
  });

  describe('its two tiers', () => {
    const run = (n: number, from: number) => list(Array.from({ length: n }, (_, i) => from + i));
    const keep = (cache: PostingsCache, word: string, postings: TermPostings) =>
      cache.remember(plan(word), {
        ...read({ [word]: postings }),
        versions: versions({ [word]: ['1', '1'] }),
      });
    const held = (cache: PostingsCache, word: string) =>
      cache.lookup(plan(word))?.postings.terms.get(`body\u0000${word}`);
    // 1,300 postings: 17,060 bytes decoded with the entry's overhead, 4,148 packed, and 19,748 both
    // ways (the unpacked copy shares the packed list's norms).

    it('keeps lists decoded while they fit and packs the least recently used, before dropping any', () => {
      const cache = new PostingsCache(80_000);
      const one = run(1300, 1);
      keep(cache, 'one', one);
      for (const [i, word] of ['two', 'three', 'four'].entries())
        keep(cache, word, run(1300, 5000 * (i + 1)));
      expect(cache.size).toEqual({ terms: 4, bytes: 68_240 });
      expect(held(cache, 'one')).toBe(one); // as read: nothing unpacked, and now the most recently used
      // A fifth does not fit decoded: the least recently used (two) is packed, nothing is dropped.
      keep(cache, 'five', run(1300, 30_000));
      expect(cache.size).toEqual({ terms: 5, bytes: 72_388 });
      const two = held(cache, 'two')!;
      expect(two).toEqual(run(1300, 5000));
      // two is unpacked and kept both ways; three, now the least recently used, is packed for room.
      expect(cache.size).toEqual({ terms: 5, bytes: 75_076 });
      expect(held(cache, 'two')).toBe(two);
      expect(held(cache, 'three')).toEqual(run(1300, 10_000));
    });

    it('unpacks into the arrays of copies it dropped, from the next turn on, never into those a search holds', async () => {
      const turn = () => new Promise((resolve) => setImmediate(resolve));
      // 64,000 bytes: twelve lists packed (49,776) once a thirteenth use packs the last one read; one
      // unpacked copy more (15,600) does not fit, so each copy is dropped by the shrink after the
      // unpack that made it, and a quarter of the budget (16,000) holds its arrays for reuse.
      const filled = () => {
        const cache = new PostingsCache(64_000);
        for (let w = 0; w < 12; w++) keep(cache, `w${w}`, run(1300, 10_000 * w + 1));
        return cache;
      };
      const words = (w: number) => run(1300, 10_000 * w + 1);
      const cache = filled();
      const first = held(cache, 'w0')!;
      const second = held(cache, 'w1')!;
      expect(cache.size).toEqual({ terms: 12, bytes: 49_776 });
      // In the turn of a search that is still scoring them, both copies stay as they were unpacked.
      expect(second.docs.buffer).not.toBe(first.docs.buffer);
      expect(first).toEqual(words(0));
      expect(second).toEqual(words(1));
      await turn();
      const again = held(cache, 'w2')!;
      expect(again.docs.buffer === first.docs.buffer || again.docs.buffer === second.docs.buffer).toBe(true);
      expect(again).toEqual(words(2));

      // A copy handed out by known() is read after the search's postings statement: never reused.
      const other = filled();
      held(other, 'w0'); // packs the one list still decoded
      await turn();
      const kept = other.known(plan('w1')).get('body\u0000w1')!.postings;
      expect(other.size).toEqual({ terms: 12, bytes: 49_776 });
      await turn();
      for (let w = 2; w < 6; w++) {
        expect(held(other, `w${w}`)).toEqual(words(w));
        await turn();
      }
      expect(kept).toEqual(words(1));
    });

    it('drops a list that does not pack (a doc key twice) when room is short', () => {
      const cache = new PostingsCache(80_000);
      keep(cache, 'odd', list([3, 3, 4]));
      for (const [i, word] of ['one', 'two', 'three', 'four', 'five'].entries())
        keep(cache, word, run(1300, 5000 * i));
      // 68,439 bytes held when the fifth came: odd (199 bytes) went first, then one was packed.
      expect(cache.lookup(plan('odd'))).toBeUndefined();
      expect(cache.size).toEqual({ terms: 5, bytes: 72_388 });
    });
  });

  it('hands out the terms it holds of a plan it cannot answer whole, with their versions', () => {
    const cache = new PostingsCache(1 << 20);
    const alpha = list([1, 4, 9]);
    cache.remember(plan('alpha beta'), { ...read({ alpha }), versions: versions({ alpha: ['7', '100'] }) });
    // beta was absent then (held as absent, no postings to hand out); gamma was never read.
    expect(cache.lookup(plan('gamma beta alpha'))).toBeUndefined();
    const known = cache.known(plan('gamma beta alpha alpha'));
    expect([...known.keys()]).toEqual(['body\u0000alpha']);
    expect(known.get('body\u0000alpha')!.version).toEqual({ termId: '7', version: '100' });
    // Kept packed: handed out unpacked, equal to the list read.
    expect(known.get('body\u0000alpha')!.postings).toEqual(alpha);
    // Another index holds nothing of it; a cache turned off holds nothing at all.
    expect(cache.known(plan('alpha', '2')).size).toBe(0);
    expect(new PostingsCache(0).known(plan('alpha')).size).toBe(0);
  });

  it('replaces a term read again and forgets field statistics found changed', () => {
    const cache = new PostingsCache(1 << 20);
    const p = plan('alpha');
    cache.remember(p, { ...read({ alpha: list([1]) }), versions: versions({ alpha: ['7', '1'] }) });
    cache.remember(p, { ...read({ alpha: list([1, 5]) }), versions: versions({ alpha: ['7', '2'] }) });
    expect(cache.lookup(p)!.versions.get('body\u0000alpha')).toEqual({ termId: '7', version: '2' });
    expect([...cache.lookup(p)!.postings.terms.get('body\u0000alpha')!.docs]).toEqual([1, 5]);
    expect(cache.size.terms).toBe(1);
  });
});
