import { useSearchStore } from '../support/use-search-store';
import type { estypes } from 'es8';
import { call, client8, failure } from '../support/http';

const tagged = {
  type: 'keyword',
  script: { source: "emit(doc['name'].value + '!')" },
} as estypes.MappingRuntimeField;

describe('runtime fields in queries and sort', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const hitsOf = (result: estypes.SearchResponse) =>
    result.hits.hits.map((h) => ({ id: h._id, score: h._score, sort: h.sort }));
  beforeAll(async () => {
    await es().indices.create({
      index: 'rt',
      mappings: {
        properties: { price: { type: 'long' }, name: { type: 'keyword' }, kind: { type: 'keyword' } },
        runtime: {
          price_x2: {
            type: 'long',
            script: { source: "if (doc['price'].size() > 0) { emit(doc['price'].value * 2); }" },
          },
        },
      },
    });
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'rt', _id: '1' } },
        { price: 10, name: 'alpha', kind: 'x' },
        { index: { _index: 'rt', _id: '2' } },
        { price: 20, name: 'beta', kind: 'y' },
        { index: { _index: 'rt', _id: '3' } },
        { price: 30, name: 'gamma', kind: 'x' },
        { index: { _index: 'rt', _id: '4' } },
        { name: 'delta', kind: 'y' },
      ],
    });
  });

  it('matches term and match on a request runtime keyword field with a constant score of the boost', async () => {
    const term = await es().search({
      index: 'rt',
      runtime_mappings: { tagged },
      query: { term: { tagged: 'beta!' } },
    });
    expect(hitsOf(term)).toEqual([{ id: '2', score: 1, sort: undefined }]);
    const boosted = await es().search({
      index: 'rt',
      runtime_mappings: { tagged },
      query: { match: { tagged: { query: 'gamma!', boost: 2.5 } } },
    });
    expect(hitsOf(boosted)).toEqual([{ id: '3', score: 2.5, sort: undefined }]);
    expect(boosted.hits.max_score).toBe(2.5);
  });

  it('filters with range, terms and exists on the mapping runtime field, alone and inside bool', async () => {
    const range = await es().search({ index: 'rt', query: { range: { price_x2: { gte: 40 } } } });
    expect(hitsOf(range).map((h) => [h.id, h.score])).toEqual([
      ['2', 1],
      ['3', 1],
    ]);
    const terms = await es().search({ index: 'rt', query: { terms: { price_x2: [20, 60, 99] } } });
    expect(hitsOf(terms).map((h) => h.id)).toEqual(['1', '3']);
    expect((await es().count({ index: 'rt', query: { terms: { price_x2: [] } } })).count).toBe(0);
    expect((await es().count({ index: 'rt', query: { term: { price_x2: 39.5 } } })).count).toBe(0);
    const fractional = await es().search({
      index: 'rt',
      query: { range: { price_x2: { gt: 19.5, lte: 40.5 } } },
    });
    expect(hitsOf(fractional).map((h) => h.id)).toEqual(['1', '2']);
    const exists = await es().count({ index: 'rt', query: { exists: { field: 'price_x2' } } });
    expect(exists.count).toBe(3);
    const bool = await es().search({
      index: 'rt',
      runtime_mappings: { tagged },
      query: {
        bool: {
          filter: [{ term: { kind: 'x' } }],
          must_not: [{ terms: { tagged: ['alpha!'] } }],
          should: [{ range: { price_x2: { lt: 100 } } }],
        },
      },
    });
    expect(hitsOf(bool)).toEqual([{ id: '3', score: 1, sort: undefined }]);
  });

  it('sorts on a runtime long field asc and desc, missing last, with sort values in hits', async () => {
    const desc = await es().search({ index: 'rt', sort: [{ price_x2: 'desc' }] });
    expect(hitsOf(desc).map((h) => [h.id, h.sort])).toEqual([
      ['3', [60]],
      ['2', [40]],
      ['1', [20]],
      ['4', [null]],
    ]);
    const asc = await es().search({ index: 'rt', sort: [{ price_x2: { order: 'asc' } }, '_doc'] as never });
    expect(hitsOf(asc).map((h) => h.id)).toEqual(['1', '2', '3', '4']);
    expect(hitsOf(asc)[0]!.score).toBeNull();
  });

  it('sorts on a request runtime keyword field and pages with search_after', async () => {
    const page = await es().search({
      index: 'rt',
      runtime_mappings: { tagged },
      sort: [{ tagged: 'asc' }],
      size: 2,
    });
    expect(hitsOf(page).map((h) => [h.id, h.sort])).toEqual([
      ['1', ['alpha!']],
      ['2', ['beta!']],
    ]);
    const next = await es().search({
      index: 'rt',
      runtime_mappings: { tagged },
      sort: [{ tagged: 'asc' }],
      size: 2,
      search_after: ['beta!'],
    });
    expect(hitsOf(next).map((h) => h.id)).toEqual(['4', '3']);
  });

  it('answers a bad value for a runtime long field with ES query_shard_exception', async () => {
    const { status, body } = await failure(
      es().search({ index: 'rt', query: { term: { price_x2: 'abc' } } }),
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: {
        type: 'search_phase_execution_exception',
        failed_shards: [
          {
            reason: {
              type: 'query_shard_exception',
              reason: 'failed to create query: For input string: "abc"',
            },
          },
        ],
      },
    });
  });
});

describe('runtime fields beyond the evaluation limit', () => {
  const server = useSearchStore({}, { maxRuntimeDocs: 2 });
  beforeAll(async () => {
    await client8(server.url).bulk({
      refresh: true,
      operations: [1, 2, 3].flatMap((n) => [{ index: { _index: 'many', _id: String(n) } }, { n }]),
    });
  });

  it('refuses a query or sort that would evaluate the script over more documents than the limit', async () => {
    const body = {
      runtime_mappings: { m: { type: 'long', script: { source: "emit(doc['n'].value)" } } },
      query: { term: { m: 1 } },
    };
    const reason = 'Runtime fields are evaluated per document; [3] matched documents exceed the limit of [2]';
    const query = await call(server.url, 'POST', '/many/_search', body);
    expect(query.status).toBe(400);
    expect(query.json).toEqual({
      error: {
        root_cause: [{ type: 'illegal_argument_exception', reason }],
        type: 'illegal_argument_exception',
        reason,
      },
      status: 400,
    });
    const sort = await call(server.url, 'POST', '/many/_search', {
      runtime_mappings: body.runtime_mappings,
      sort: [{ m: 'asc' }],
    });
    expect(sort.status).toBe(400);
  });

  it('evaluates a sort key only over the documents the query matched', async () => {
    // Two of the three documents match: within the limit of 2, where the whole index (3) is not.
    const result = await call(server.url, 'POST', '/many/_search', {
      runtime_mappings: { m: { type: 'long', script: { source: "emit(10 - doc['n'].value)" } } },
      query: { ids: { values: ['1', '3'] } },
      sort: [{ m: 'asc' }],
    });
    expect(result.status).toBe(200);
    const hits = (result.json as { hits: { hits: { _id: string; sort: number[] }[] } }).hits.hits;
    expect(hits.map((h) => [h._id, h.sort])).toEqual([
      ['3', [7]],
      ['1', [9]],
    ]);
  });
});

describe('runtime fields in filter aggregations', () => {
  const server = useSearchStore();
  beforeAll(async () => {
    await client8(server.url).bulk({
      refresh: true,
      operations: [5, 15, 25].flatMap((n) => [{ index: { _index: 'aggs', _id: String(n) } }, { n }]),
    });
  });

  it('counts the documents a filter aggregation selects through a runtime field', async () => {
    const result = await client8(server.url).search({
      index: 'aggs',
      size: 0,
      runtime_mappings: { big: { type: 'boolean', script: { source: "emit(doc['n'].value > 10)" } } },
      aggs: { big: { filter: { term: { big: true } } } },
    });
    expect(result.aggregations).toEqual({ big: { doc_count: 2 } });
  });
});
