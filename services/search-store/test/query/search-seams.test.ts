import { createIndexFixture, type IndexFixture } from '../index/support/index-fixture';
import { executeSearch } from '../../src/query/execute-search';
import { openIndexReaders } from '../../src/query/index-reader';
import { parseSearchRequest } from '../../src/query/search-request';
import type { SearchSeams } from '../../src/query/search-seams';
import { adaptAggregationRunner, collectAggQueries } from '../../src/query/aggregation-adapter';
import { adaptRuntimeFields } from '../../src/query/runtime-field-adapter';

let fx: IndexFixture;
beforeAll(async () => (fx = await createIndexFixture()));
afterAll(() => fx.end());

describe('seams for aggregations and runtime fields', () => {
  it('hands the aggregation runner SQL of exactly the matched documents with their scores', async () => {
    const index = await fx.createIndex({ properties: { t: { type: 'text' }, n: { type: 'long' } } });
    await fx.putDocs(index, { a: { t: 'fox', n: 1 }, b: { t: 'fox fox', n: 2 }, c: { t: 'cat', n: 3 } });
    const seen: unknown[] = [];
    const seams: SearchSeams = {
      aggregations: {
        async runAggregations(client, ctx, matched, aggs) {
          seen.push({ indices: ctx.readers.map((r) => r.name), aggs });
          const { rows } = await client.query<{ n: string; docs: string[] }>(
            `SELECT count(*) AS n, array_agg(d.id ORDER BY d.id) AS docs FROM (${matched.text}) m
             JOIN documents d ON d.index_id = m.index_id AND d.doc_key = m.doc_key`,
            matched.values,
          );
          return { matched: { value: Number(rows[0]!.n), docs: rows[0]!.docs } };
        },
      },
    };
    const readers = await openIndexReaders(fx.pool, [
      { index_id: index.indexId, name: index.name, uuid: 'u', mappings: index.mappings, settings: {} },
    ]);
    const request = parseSearchRequest(
      {
        query: { match: { t: 'fox' } },
        post_filter: { term: { n: 2 } },
        size: 0,
        aggs: { x: { avg: { field: 'n' } } },
      },
      {},
    );
    const res = await executeSearch(fx.pool, readers, request, seams);
    expect(res.aggregations).toEqual({ matched: { value: 2, docs: ['a', 'b'] } });
    // post_filter narrows the hits, not what the aggregations see.
    expect(res.hits).toEqual({ total: { value: 1, relation: 'eq' }, max_score: null, hits: [] });
    expect(seen).toEqual([{ indices: [index.name], aggs: { x: { avg: { field: 'n' } } } }]);
  });

  it('returns runtime field values in `fields` only, and versions on request', async () => {
    const index = await fx.createIndex({ properties: { n: { type: 'long' } } });
    await fx.putDocs(index, { a: { n: 21 } });
    const seams: SearchSeams = {
      runtimeFields: {
        compile: (mappings) => ({
          types: new Map(Object.keys(mappings).map((name) => [name, 'long'])),
          valuesFor: async (_indexId, source) => ({ double_n: [Number(source.n) * 2] }),
        }),
      },
    };
    const readers = await openIndexReaders(fx.pool, [
      { index_id: index.indexId, name: index.name, uuid: 'u', mappings: index.mappings, settings: {} },
    ]);
    const request = parseSearchRequest(
      {
        runtime_mappings: { double_n: { type: 'long', script: { source: 'emit(0)' } } },
        fields: ['double_n', 'n'],
        version: true,
        seq_no_primary_term: true,
      },
      {},
    );
    const res = await executeSearch(fx.pool, readers, request, seams);
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
});

describe('aggregation adapter for the script-aggs engine shape', () => {
  it('compiles filter/filters queries (match included) up front and hands matched docs with scores', async () => {
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
    const runner = adaptAggregationRunner(async (client, ctx, matched, body) => {
      const fox = ctx.translateQuery((body as typeof aggs).f.filter);
      const shift = (sql: string, by: number) =>
        sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);
      const { rows } = await client.query<{ n: string; top: number }>(
        `SELECT count(*) AS n, max(m.score) AS top FROM (${matched.sql}) m WHERE m.doc_key IN (${shift(fox.sql, matched.params.length)})`,
        [...matched.params, ...fox.params],
      );
      return {
        f: {
          doc_count: Number(rows[0]!.n),
          top: rows[0]!.top,
          fields: ctx.fieldsByPath('k').map((x) => x.type),
        },
      };
    });
    const readers = await openIndexReaders(fx.pool, [
      { index_id: index.indexId, name: index.name, uuid: 'u', mappings: index.mappings, settings: {} },
    ]);
    const res = await executeSearch(
      fx.pool,
      readers,
      parseSearchRequest({ query: { match: { t: 'red' } }, size: 0, aggs }, {}),
      {
        aggregations: runner,
      },
    );
    expect(res.aggregations).toEqual({ f: { doc_count: 1, top: expect.any(Number), fields: ['keyword'] } });
  });
});

describe('runtime field adapter for the script-aggs shape', () => {
  it("gives scripts doc['f'] as doc values and returns what they emit in `fields`", async () => {
    const index = await fx.createIndex({
      properties: { n: { type: 'integer' }, k: { type: 'keyword', normalizer: 'lowercase' } },
    });
    await fx.putDocs(index, { a: { n: [3, 1.9], k: ['B', 'a', 'b'] } });
    const seen: unknown[] = [];
    const seams: SearchSeams = {
      runtimeFields: adaptRuntimeFields(
        () =>
          new Map([
            [
              'probe',
              {
                type: 'keyword',
                evaluate: (doc) => {
                  seen.push(doc.docValues('n'), doc.docValues('k'), doc.docValues('missing'));
                  return ['ok'];
                },
              },
            ],
          ]),
      ),
    };
    const readers = await openIndexReaders(fx.pool, [
      { index_id: index.indexId, name: index.name, uuid: 'u', mappings: index.mappings, settings: {} },
    ]);
    const request = parseSearchRequest(
      { runtime_mappings: { probe: { type: 'keyword' } }, fields: ['probe'], _source: false },
      {},
    );
    const res = await executeSearch(fx.pool, readers, request, seams);
    expect(res.hits.hits[0]!.fields).toEqual({ probe: ['ok'] });
    expect(seen).toEqual([
      { type: 'long', values: [1, 3] },
      { type: 'keyword', values: ['a', 'b'] },
      undefined,
    ]);
  });
});
