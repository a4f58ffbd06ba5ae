import type { Client } from 'es8';
import type { RunningSearchStore } from '../support/start-search-store';
import { startStoreWithIndex, stopStoreWithIndex, uniqueIndexName } from '../support/start-store-with-index';
import { call } from '../support/http';

/** Named queries (`_name`) and each hit's `matched_queries`, through the client and raw HTTP. */
let store: RunningSearchStore;
let es: Client;
const index = uniqueIndexName('named', 'n');

beforeAll(async () => {
  ({ store, es } = await startStoreWithIndex(
    index,
    {
      mappings: { properties: { field: { type: 'long' }, title: { type: 'text' } } },
    },
    [
      ['1', { field: 1, title: 'quick fox' }],
      ['2', { field: [1, 2], title: 'lazy dog' }],
    ],
  ));
});
afterAll(() => stopStoreWithIndex({ store, es }));

const shouldTwo = {
  bool: {
    should: [
      { match: { field: { query: 1, _name: 'match_field_1' } } },
      { match: { field: { query: 2, _name: 'match_field_2', boost: 10 } } },
    ],
  },
};

async function search(body: unknown, query = ''): Promise<Record<string, unknown>[]> {
  const res = await call(store.url, 'POST', `/${index}/_search${query}`, body);
  expect(res.status).toBe(200);
  return (res.json as { hits: { hits: Record<string, unknown>[] } }).hits.hits;
}

describe('matched_queries', () => {
  it('lists the named queries each hit matches, through the client', async () => {
    const res = await es.search({ index, query: shouldTwo });
    expect(res.hits.hits.map((h) => [h._id, h.matched_queries])).toEqual([
      ['2', ['match_field_1', 'match_field_2']],
      ['1', ['match_field_1']],
    ]);
  });

  it('include_named_queries_score=true gives each named query its own score', async () => {
    const hits = await search({ query: shouldTwo }, '?include_named_queries_score=true');
    expect(hits.map((h) => [h._id, h.matched_queries])).toEqual([
      ['2', { match_field_1: 1, match_field_2: 10 }],
      ['1', { match_field_1: 1 }],
    ]);
    const text = await search(
      { query: { match: { title: { query: 'quick', _name: 'q' } } } },
      '?include_named_queries_score=true',
    );
    expect(text).toHaveLength(1);
    expect((text[0]!.matched_queries as Record<string, number>).q).toBe(text[0]!._score);
  });

  it('names compound and leaf queries in every clause; unmatched names are left out', async () => {
    const hits = await search({
      query: {
        bool: {
          _name: 'outer',
          filter: [{ term: { field: { value: 2, _name: 'two' } } }],
          must_not: [{ term: { field: { value: 3, _name: 'never' } } }],
          should: [
            { constant_score: { filter: { match_all: {} }, _name: 'cs' } },
            { function_score: { query: { ids: { values: ['2'] } }, weight: 2, _name: 'fs' } },
            { terms: { field: [7], _name: 'seven' } },
          ],
        },
      },
    });
    expect(hits.map((h) => [h._id, h.matched_queries])).toEqual([['2', ['cs', 'fs', 'outer', 'two']]]);
  });

  it('includes post_filter names, and a hit without a match or a request without names has none', async () => {
    const hits = await search({
      query: { match_all: {} },
      post_filter: { range: { field: { gte: 2, _name: 'big' } } },
    });
    expect(hits.map((h) => [h._id, h.matched_queries])).toEqual([['2', ['big']]]);
    const plain = await search({ query: { match: { title: 'fox' } } });
    expect(plain[0]).not.toHaveProperty('matched_queries');
    const some = await search({
      query: { bool: { should: [{ match_all: {} }, { term: { title: { value: 'dog', _name: 'dog' } } }] } },
      sort: ['_doc'],
    });
    expect(some.map((h) => h.matched_queries)).toEqual([undefined, ['dog']]);
  });
});
