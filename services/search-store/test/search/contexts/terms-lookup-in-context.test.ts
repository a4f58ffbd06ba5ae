import { call, client8 } from '../../support/http';
import { startInstances, type Instance } from '../../support/start-instances';

type Page = {
  _scroll_id?: string;
  pit_id?: string;
  hits: { total: { value: number }; hits: { _id: string }[] };
};

/**
 * A `terms` query with a lookup (ES "Terms lookup") inside a scroll or a point in time: the values
 * are fetched before the search runs, and read in the context's snapshot, so a later page sees the
 * values the first one saw even after the looked-up document changes.
 */
describe('terms lookup inside scroll and point in time', () => {
  let a: Instance;
  let b: Instance;
  let all: Instance[];
  beforeAll(async () => {
    ({ instances: all } = await startInstances(2));
    [a, b] = all as [Instance, Instance];
    const es = client8(a.url);
    await es.indices.create({ index: 'items', mappings: { properties: { tag: { type: 'keyword' } } } });
    const operations = ['red', 'blue', 'green', 'red', 'blue'].flatMap((tag, i) => [
      { index: { _index: 'items', _id: `i${i}` } },
      { tag },
    ]);
    await es.bulk({ operations, refresh: true });
    await es.index({ index: 'prefs', id: 'u1', document: { likes: ['red', 'blue'] }, refresh: true });
  });
  afterAll(async () => {
    for (const instance of all) await instance.stop();
  });

  const lookup = { terms: { tag: { index: 'prefs', id: 'u1', path: 'likes' } } };

  it('a scroll matches the looked-up values on every page, on either instance', async () => {
    const first = await call(a.url, 'POST', '/items/_search?scroll=1m', {
      size: 1,
      query: lookup,
      sort: ['_doc'],
    });
    expect(first.status).toBe(200);
    const page1 = first.json as Page;
    expect(page1.hits.total.value).toBe(4);
    const seen = page1.hits.hits.map((h) => h._id);
    // The looked-up document changes after the scroll opened: the scroll keeps its snapshot's values.
    await client8(b.url).index({ index: 'prefs', id: 'u1', document: { likes: ['green'] }, refresh: true });
    for (let i = 0; i < 6; i++) {
      const next = await call(i % 2 ? a.url : b.url, 'POST', '/_search/scroll', {
        scroll: '1m',
        scroll_id: page1._scroll_id,
      });
      expect(next.status).toBe(200);
      const page = next.json as Page;
      if (page.hits.hits.length === 0) break;
      seen.push(...page.hits.hits.map((h) => h._id));
    }
    expect(seen.sort()).toEqual(['i0', 'i1', 'i3', 'i4']);
    // A new search sees the new values.
    const fresh = await call(a.url, 'POST', '/items/_search', { query: lookup });
    expect((fresh.json as Page).hits.hits.map((h) => h._id)).toEqual(['i2']);
    await client8(a.url).index({
      index: 'prefs',
      id: 'u1',
      document: { likes: ['red', 'blue'] },
      refresh: true,
    });
  });

  it('a point-in-time search resolves the lookup in the PIT snapshot', async () => {
    const { id } = await client8(a.url).openPointInTime({ index: 'items', keep_alive: '1m' });
    await client8(a.url).index({ index: 'items', id: 'i5', document: { tag: 'red' }, refresh: true });
    const found = await call(b.url, 'POST', '/_search', { query: lookup, pit: { id }, size: 10 });
    expect(found.status).toBe(200);
    const page = found.json as Page;
    // i5 was written after the PIT opened: not in it.
    expect(page.hits.hits.map((h) => h._id).sort()).toEqual(['i0', 'i1', 'i3', 'i4']);
    await client8(a.url).closePointInTime({ id });
  });
});
