import { createIndexFixture, type IndexFixture } from '../index/support/index-fixture';
import { collectAggQueries, compileAggContext } from '../../src/search/compile-agg-context';
import { executeSearch } from '../../src/search/execute-search';
import { openIndexReaders, type IndexReader } from '../../src/query/index-reader';
import { parseSearchRequest } from '../../src/query/parse/search-request';
import { compileSearchRuntimeFields } from '../../src/query/compile/search-runtime-fields';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

async function readersOf(index: Awaited<ReturnType<IndexFixture['createIndex']>>): Promise<IndexReader[]> {
  return openIndexReaders(fx.pool, [
    { index_id: index.indexId, name: index.name, uuid: 'u', mappings: index.mappings, settings: {} },
  ]);
}

describe('aggregations called from the search', () => {
  it('aggregate exactly the matched documents with their scores, before post_filter', async () => {
    const index = await fx.createIndex({ properties: { t: { type: 'text' }, n: { type: 'long' } } });
    await fx.putDocs(index, { a: { t: 'fox', n: 1 }, b: { t: 'fox fox', n: 2 }, c: { t: 'cat', n: 3 } });
    const request = parseSearchRequest(
      {
        query: { match: { t: 'fox' } },
        post_filter: { term: { n: 2 } },
        size: 0,
        aggs: { ns: { terms: { field: 'n' } }, top: { top_hits: { size: 3, _source: false } } },
      },
      {},
    );
    const res = await executeSearch(fx.pool, await readersOf(index), request);
    const aggs = res.aggregations as {
      ns: { buckets: { key: number; doc_count: number }[] };
      top: { hits: { total: unknown; hits: { _id: string; _score: number }[] } };
    };
    // post_filter narrows the hits, not what the aggregations see.
    expect(res.hits).toEqual({ total: { value: 1, relation: 'eq' }, max_score: null, hits: [] });
    expect(aggs.ns.buckets.map((b) => [b.key, b.doc_count])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(aggs.top.hits.total).toEqual({ value: 2, relation: 'eq' });
    // Scored by the query: "fox fox" first.
    expect(aggs.top.hits.hits.map((h) => h._id)).toEqual(['b', 'a']);
    expect(aggs.top.hits.hits[0]!._score).toBeGreaterThan(aggs.top.hits.hits[1]!._score);
  });

  it('compiles filter/filters queries (match included) up front, at any depth', async () => {
    const index = await fx.createIndex({ properties: { t: { type: 'text' }, k: { type: 'keyword' } } });
    await fx.putDocs(index, {
      a: { t: 'red fox', k: 'x' },
      b: { t: 'red dog', k: 'y' },
      c: { t: 'blue fox', k: 'x' },
    });
    const aggs = {
      f: {
        filter: { match: { t: 'fox' } },
        aggs: { inner: { filters: { filters: { xs: { term: { k: 'x' } } } } } },
      },
    };
    expect(collectAggQueries(aggs)).toEqual([{ match: { t: 'fox' } }, { term: { k: 'x' } }]);
    const readers = await readersOf(index);
    const ctx = await compileAggContext(fx.pool, readers, aggs, { now: 0 });
    expect(ctx.fieldsByPath('k').map((f) => f.type)).toEqual(['keyword']);
    const fox = ctx.translateQuery({ match: { t: 'fox' } });
    const { rows } = await fx.pool.query<{ id: string }>(
      `SELECT d.id FROM (${fox.sql}) q JOIN documents d ON d.doc_key = q.doc_key ORDER BY d.id`,
      fox.params,
    );
    expect(rows.map((r) => r.id)).toEqual(['a', 'c']);
    expect(() => ctx.translateQuery({ match_all: {} })).toThrow('not compiled up front');

    const res = await executeSearch(
      fx.pool,
      readers,
      parseSearchRequest({ query: { match: { t: 'red' } }, size: 0, aggs }, {}),
    );
    expect(res.aggregations).toEqual({
      f: { doc_count: 1, inner: { buckets: { xs: { doc_count: 1 } } } },
    });
  });
});

describe('runtime fields compiled by the search', () => {
  it('returns runtime field values in `fields` only, and versions on request', async () => {
    const index = await fx.createIndex({ properties: { n: { type: 'long' } } });
    await fx.putDocs(index, { a: { n: 21 } });
    const request = parseSearchRequest(
      {
        runtime_mappings: { double_n: { type: 'long', script: { source: "emit(doc['n'].value * 2)" } } },
        fields: ['double_n', 'n'],
        version: true,
        seq_no_primary_term: true,
      },
      {},
    );
    const res = await executeSearch(fx.pool, await readersOf(index), request);
    expect(JSON.parse(JSON.stringify(res.hits.hits))).toEqual([
      {
        _index: index.name,
        _id: 'a',
        _version: 1,
        _seq_no: 0,
        _primary_term: 1,
        _score: 1,
        _source: { n: 21 },
        fields: { n: [21], double_n: [42] },
      },
    ]);
  });

  it("gives scripts on a hit doc['f'] as doc values: normalized, deduplicated, sorted", async () => {
    const index = await fx.createIndex({
      properties: { n: { type: 'integer' }, k: { type: 'keyword', normalizer: 'lowercase' } },
    });
    await fx.putDocs(index, { a: { n: [3, 1.9], k: ['B', 'a', 'b'] } });
    const readers = await readersOf(index);
    const runtime = compileSearchRuntimeFields(
      {
        probe: {
          type: 'keyword',
          script: "for (def v : doc['n']) { emit('n' + v) } for (def v : doc['k']) { emit('k' + v) }",
        },
      },
      readers,
    );
    expect(runtime.types).toEqual(new Map([['probe', 'keyword']]));
    const values = await runtime.valuesFor(readers[0]!.indexId, { n: [3, 1.9], k: ['B', 'a', 'b'] });
    expect({ ...values }).toEqual({ probe: ['ka', 'kb', 'n1', 'n3'] });

    const res = await executeSearch(
      fx.pool,
      readers,
      parseSearchRequest(
        {
          runtime_mappings: {
            probe: { type: 'keyword', script: "emit(doc['k'].size() + ':' + doc['n'][0])" },
          },
          fields: ['probe'],
          _source: false,
        },
        {},
      ),
    );
    expect(res.hits.hits[0]!.fields).toEqual({ probe: ['2:1'] });
  });

  it('aggregates the documents a query on a runtime field matched', async () => {
    const index = await fx.createIndex({ properties: { n: { type: 'long' } } });
    await fx.putDocs(index, { a: { n: 5 }, b: { n: 7 }, c: { n: 5 } });
    const res = await executeSearch(
      fx.pool,
      await readersOf(index),
      parseSearchRequest(
        {
          runtime_mappings: { m: { type: 'long', script: { source: "emit(doc['n'].value * 2)" } } },
          query: { term: { m: 10 } },
          size: 0,
          aggs: { count: { value_count: { field: 'n' } }, ns: { terms: { field: 'n' } } },
        },
        {},
      ),
    );
    // The aggregations see the same two documents the hits count, not none.
    expect(res.hits.total).toEqual({ value: 2, relation: 'eq' });
    expect(res.aggregations).toEqual({
      count: { value: 2 },
      ns: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 5, doc_count: 2 }] },
    });
  });
});
