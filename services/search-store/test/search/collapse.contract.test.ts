import type { Client } from 'es8';
import type { RunningSearchStore } from '../support/start-search-store';
import { startStoreWithIndex, stopStoreWithIndex, uniqueIndexName } from '../support/start-store-with-index';
import { call } from '../support/http';

interface Hit {
  _id: string;
  _version?: number;
  sort?: unknown[];
  fields: Record<string, unknown[]>;
  inner_hits: Record<string, { hits: { total: unknown; hits: Hit[] } }>;
}
interface Json {
  hits: { hits: Hit[] };
  error: { type: string; reason: string; root_cause: unknown[] };
}

/** Field collapsing (ES "Collapse search results") with inner_hits, through the client and raw HTTP. */
let store: RunningSearchStore;
let es: Client;
const index = uniqueIndexName('collapse', 'c');

const DOCS: [string, Record<string, unknown>][] = [
  ['1', { group: 1, tag: 'A', rank: 10, title: 'red fox' }],
  ['2', { group: 1, tag: 'B', rank: 6, title: 'red dog' }],
  ['3', { group: 1, tag: 'A', rank: 24, title: 'blue fox' }],
  ['4', { group: 25, tag: 'B', rank: 10, title: 'red red fox' }],
  ['5', { group: 25, tag: 'A', rank: 5, title: 'green fox' }],
  ['6', { group: 3, tag: 'B', rank: 36, title: 'fox' }],
  ['7', { tag: 'C', rank: 1, title: 'grey fox' }],
];

beforeAll(async () => {
  ({ store, es } = await startStoreWithIndex(
    index,
    {
      mappings: {
        properties: {
          group: { type: 'integer' },
          tag: { type: 'keyword' },
          rank: { type: 'integer' },
          title: { type: 'text' },
        },
      },
    },
    DOCS,
  ));
});
afterAll(() => stopStoreWithIndex({ store, es }));

async function search(body: Record<string, unknown>, query = ''): Promise<{ status: number; json: Json }> {
  const res = await call(store.url, 'POST', `/${index}/_search${query}`, body);
  return { status: res.status, json: res.json as Json };
}

describe('collapse', () => {
  it('keeps each group top hit in the sort order; fields carry the group value; total counts documents', async () => {
    const res = await es.search({ index, collapse: { field: 'group' }, sort: [{ rank: 'desc' }] });
    expect(res.hits.total).toEqual({ value: 7, relation: 'eq' });
    expect(res.hits.hits.map((h) => [h._id, h.fields, h.sort])).toEqual([
      ['6', { group: [3] }, [36]],
      ['3', { group: [1] }, [24]],
      ['4', { group: [25] }, [10]],
      ['7', { group: [null] }, [1]],
    ]);
    expect(res.hits.hits[0]).not.toHaveProperty('inner_hits');
  });

  it('collapses by relevance on a keyword, and pages over groups', async () => {
    const { json } = await search({ query: { match: { title: 'red' } }, collapse: { field: 'tag' } });
    // doc 4 (red twice) leads tag B over doc 2; doc 1 is tag A's only red document.
    expect(json.hits.hits.map((h) => [h._id, h.fields.tag])).toEqual([
      ['4', ['B']],
      ['1', ['A']],
    ]);
    const paged = await search({ collapse: { field: 'group' }, sort: [{ rank: 'desc' }], from: 1, size: 2 });
    expect(paged.json.hits.hits.map((h) => h._id)).toEqual(['3', '4']);
  });

  it('expands inner_hits per group with name, size, sort and version; one or an array', async () => {
    const { json } = await search(
      {
        collapse: {
          field: 'group',
          max_concurrent_group_searches: 4,
          inner_hits: [
            { name: 'asc', size: 2, sort: [{ rank: 'asc' }], version: true, _source: false },
            { name: 'desc', size: 1, from: 0, sort: [{ rank: 'desc' }], fields: ['tag'], _source: false },
          ],
        },
        sort: [{ rank: 'desc' }],
        size: 3,
      },
      '?rest_total_hits_as_int=true',
    );
    const group1 = json.hits.hits[1]!;
    expect(group1._id).toBe('3');
    expect(group1.inner_hits.asc!.hits.total).toBe(3);
    expect(group1.inner_hits.asc!.hits.hits.map((h) => [h._id, h._version, h.sort])).toEqual([
      ['2', 1, [6]],
      ['1', 1, [10]],
    ]);
    expect(group1.inner_hits.desc!.hits.hits).toEqual([
      { _index: index, _id: '3', _score: null, fields: { tag: ['A'] }, sort: [24] },
    ]);
    const single = await search({
      collapse: { field: 'group', inner_hits: { name: 'top' } },
      sort: ['_doc'],
    });
    const missingGroup = single.json.hits.hits.find((h) => h._id === '7')!;
    expect(missingGroup.inner_hits.top!.hits.total).toEqual({ value: 1, relation: 'eq' });
    expect(single.json.hits.hits[0]!.inner_hits.top!.hits.hits).toHaveLength(3);
  });

  it('refuses a text field, an unmapped field, rescore, scroll and search_after on another sort', async () => {
    const shardReason = async (body: Record<string, unknown>): Promise<unknown> => {
      const { status, json } = await search(body);
      expect(status).toBe(400);
      expect(json.error.type).toBe('search_phase_execution_exception');
      return json.error.root_cause[0];
    };
    expect(await shardReason({ collapse: { field: 'title' } })).toEqual({
      type: 'illegal_argument_exception',
      reason: 'collapse is not supported for the field [title] of the type [text]',
    });
    expect(await shardReason({ collapse: { field: 'nope' } })).toEqual({
      type: 'illegal_argument_exception',
      reason: 'no mapping found for `nope` in order to collapse on',
    });
    expect(
      await shardReason({
        collapse: { field: 'group' },
        rescore: { query: { rescore_query: { match_all: {} } } },
      }),
    ).toEqual({ type: 'search_exception', reason: 'cannot use `collapse` in conjunction with `rescore`' });
    expect(
      await shardReason({ collapse: { field: 'group' }, sort: [{ rank: 'desc' }], search_after: [6] }),
    ).toMatchObject({
      reason:
        'Cannot use [collapse] in conjunction with [search_after] unless the search is sorted on the same field. Multiple sort fields are not allowed.',
    });
    const scroll = await search({ collapse: { field: 'group' } }, '?scroll=1m');
    expect(scroll.status).toBe(400);
    expect(scroll.json.error.reason).toBe('Validation Failed: 1: cannot use `collapse` in a scroll context;');
    const unknown = await search({ collapse: { field: 'group', bogus: 1 } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.type).toBe('x_content_parse_exception');
    expect(unknown.json.error.reason).toMatch(/\[collapse\] unknown field \[bogus\]$/);
  });

  it('pages after a group with search_after sorted on the collapse field', async () => {
    const { json } = await search({
      collapse: { field: 'group' },
      sort: [{ group: 'desc' }],
      search_after: [25],
      size: 2,
    });
    expect(json.hits.hits.map((h) => [h.fields.group, h.sort])).toEqual([
      [[3], [3]],
      [[1], [1]],
    ]);
  });
});
