import { EsError } from '@acme/common';
import { runAggregations } from '../../src/aggs/run-aggregations';
import { compileRuntimeFields } from '../../src/script/runtime-fields';
import { createAggFixture, type AggFixture } from './aggs-fixture';
import type { DocumentValues } from '../../src/script/runtime-fields';
import { forEachDocumentChunk } from '../../src/aggs/load-document-values';

let fx: AggFixture;
beforeAll(async () => {
  fx = await createAggFixture();
});
afterAll(async () => {
  await fx.stop();
});

const JAN = Date.UTC(2020, 0, 1);
const FEB = Date.UTC(2020, 1, 1);
const MAR = Date.UTC(2020, 2, 1);

async function aggs(
  body: unknown,
  matched = fx.all,
  extra: Partial<AggFixture['ctx']> = {},
): Promise<Record<string, unknown>> {
  return runAggregations(fx.pool, { ...fx.ctx, ...extra }, matched, body);
}

async function failure(
  body: unknown,
  extra: Partial<AggFixture['ctx']> = {},
): Promise<ReturnType<EsError['toBody']>> {
  try {
    await aggs(body, fx.all, extra);
  } catch (error) {
    if (error instanceof EsError) return error.toBody();
    throw error;
  }
  throw new Error('expected an error');
}

describe('metric aggregations', () => {
  test('avg, sum, min, max, value_count, cardinality and stats over doc values', async () => {
    expect(
      await aggs({
        avg_price: { avg: { field: 'price' } },
        sum_price: { sum: { field: 'price' } },
        min_price: { min: { field: 'price' } },
        max_price: { max: { field: 'price' } },
        n: { value_count: { field: 'price' } },
        cats: { cardinality: { field: 'category' } },
        tag_count: { value_count: { field: 'tags' } },
        s: { stats: { field: 'qty' } },
      }),
    ).toEqual({
      avg_price: { value: 52.625 },
      sum_price: { value: 210.5 },
      min_price: { value: 10 },
      max_price: { value: 150 },
      n: { value: 4 },
      cats: { value: 3 },
      tag_count: { value: 3 },
      s: { count: 5, min: 1, max: 5, avg: 3, sum: 15 },
    });
  });

  test('with no matching documents avg/min/max are null and sum is 0', async () => {
    expect(
      await aggs(
        {
          a: { avg: { field: 'price' } },
          s: { sum: { field: 'price' } },
          m: { min: { field: 'price' } },
          st: { stats: { field: 'price' } },
          c: { value_count: { field: 'price' } },
        },
        fx.none,
      ),
    ).toEqual({
      a: { value: null },
      s: { value: 0 },
      m: { value: null },
      st: { count: 0, min: null, max: null, avg: null, sum: 0 },
      c: { value: 0 },
    });
  });

  test('date metrics add value_as_string; missing substitutes for documents without a value', async () => {
    expect(
      await aggs({ first: { min: { field: 'date' } }, p: { avg: { field: 'price', missing: 0 } } }),
    ).toEqual({
      first: { value: Date.parse('2020-01-01T10:00:00Z'), value_as_string: '2020-01-01T10:00:00.000Z' },
      p: { value: 42.1 },
    });
  });

  test('an unmapped field aggregates to empty results', async () => {
    expect(await aggs({ a: { avg: { field: 'nope' } }, t: { terms: { field: 'nope' } } })).toEqual({
      a: { value: null },
      t: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
    });
  });
});

describe('terms', () => {
  test('buckets by count desc then key asc, with sum_other_doc_count beyond size', async () => {
    expect(
      await aggs({ c: { terms: { field: 'category' } }, top: { terms: { field: 'category', size: 1 } } }),
    ).toEqual({
      c: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'a', doc_count: 3 },
          { key: 'b', doc_count: 1 },
          { key: 'c', doc_count: 1 },
        ],
      },
      top: { doc_count_error_upper_bound: 0, sum_other_doc_count: 2, buckets: [{ key: 'a', doc_count: 3 }] },
    });
  });

  test('booleans key as 1/0 with key_as_string; longs key as numbers', async () => {
    const result = await aggs({
      s: { terms: { field: 'in_stock' } },
      q: { terms: { field: 'qty', size: 2 } },
    });
    expect(result).toEqual({
      s: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 1, key_as_string: 'true', doc_count: 2 },
          { key: 0, key_as_string: 'false', doc_count: 1 },
        ],
      },
      q: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 3,
        buckets: [
          { key: 1, doc_count: 1 },
          { key: 2, doc_count: 1 },
        ],
      },
    });
  });

  test('orders by _key, by a sub-metric, honours min_doc_count and missing', async () => {
    const result = await aggs({
      by_key: { terms: { field: 'category', order: { _key: 'desc' } } },
      by_avg: {
        terms: { field: 'category', order: { avg_price: 'desc' } },
        aggs: { avg_price: { avg: { field: 'price' } } },
      },
      frequent: { terms: { field: 'category', min_doc_count: 2 } },
      tags: { terms: { field: 'tags', missing: 'none' } },
    });
    expect((result.by_key as { buckets: Array<{ key: string }> }).buckets.map((b) => b.key)).toEqual([
      'c',
      'b',
      'a',
    ]);
    expect(result.by_avg).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 'c', doc_count: 1, avg_price: { value: 150 } },
        { key: 'b', doc_count: 1, avg_price: { value: 30.5 } },
        { key: 'a', doc_count: 3, avg_price: { value: 15 } },
      ],
    });
    expect(result.frequent).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 2,
      buckets: [{ key: 'a', doc_count: 3 }],
    });
    expect(result.tags).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 'none', doc_count: 3 },
        { key: 'x', doc_count: 2 },
        { key: 'y', doc_count: 1 },
      ],
    });
  });

  test('sub-aggregations nest at any depth and meta is echoed', async () => {
    const result = await aggs({
      c: {
        meta: { color: 'blue' },
        terms: { field: 'category', size: 1 },
        aggs: { stock: { terms: { field: 'in_stock' }, aggs: { p: { max: { field: 'price' } } } } },
      },
    });
    expect(result).toEqual({
      c: {
        meta: { color: 'blue' },
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 2,
        buckets: [
          {
            key: 'a',
            doc_count: 3,
            stock: {
              doc_count_error_upper_bound: 0,
              sum_other_doc_count: 0,
              buckets: [
                { key: 0, key_as_string: 'false', doc_count: 1, p: { value: 20 } },
                { key: 1, key_as_string: 'true', doc_count: 1, p: { value: 10 } },
              ],
            },
          },
        ],
      },
    });
  });
});

describe('filter and filters', () => {
  test('filter counts the documents matching its query and runs sub-aggregations on them', async () => {
    expect(
      await aggs({
        only_a: { filter: { term: { category: 'a' } }, aggs: { m: { max: { field: 'price' } } } },
      }),
    ).toEqual({
      only_a: { doc_count: 3, m: { value: 20 } },
    });
  });

  test('filters answers keyed buckets for an object and a list for an array, with other_bucket', async () => {
    expect(
      await aggs({
        named: {
          filters: {
            filters: { b: { term: { category: 'b' } }, a: { term: { category: 'a' } } },
            other_bucket: true,
          },
        },
        anon: { filters: { filters: [{ term: { category: 'a' } }, { range: { price: { gte: 100 } } }] } },
      }),
    ).toEqual({
      named: { buckets: { a: { doc_count: 3 }, b: { doc_count: 1 }, _other_: { doc_count: 1 } } },
      anon: { buckets: [{ doc_count: 3 }, { doc_count: 1 }] },
    });
  });
});

describe('range, date_range, histogram, date_histogram', () => {
  test('range buckets use from ≤ v < to with Elasticsearch keys', async () => {
    expect(
      await aggs({
        r: { range: { field: 'price', ranges: [{ from: 100 }, { to: 20 }, { from: 20, to: 100 }] } },
      }),
    ).toEqual({
      r: {
        buckets: [
          { key: '*-20.0', to: 20, doc_count: 1 },
          { key: '20.0-100.0', from: 20, to: 100, doc_count: 2 },
          { key: '100.0-*', from: 100, doc_count: 1 },
        ],
      },
    });
  });

  test('date_range formats its bounds', async () => {
    expect(
      await aggs({
        d: {
          date_range: { field: 'date', ranges: [{ to: '2020-02-01' }, { from: '2020-02-01', key: 'later' }] },
        },
      }),
    ).toEqual({
      d: {
        buckets: [
          {
            key: '*-2020-02-01T00:00:00.000Z',
            to: FEB,
            to_as_string: '2020-02-01T00:00:00.000Z',
            doc_count: 2,
          },
          { key: 'later', from: FEB, from_as_string: '2020-02-01T00:00:00.000Z', doc_count: 2 },
        ],
      },
    });
  });

  test('histogram fills empty buckets between min and max and up to extended_bounds', async () => {
    expect(
      await aggs({
        h: { histogram: { field: 'price', interval: 50, extended_bounds: { min: 0, max: 200 } } },
      }),
    ).toEqual({
      h: {
        buckets: [
          { key: 0, doc_count: 3 },
          { key: 50, doc_count: 0 },
          { key: 100, doc_count: 0 },
          { key: 150, doc_count: 1 },
          { key: 200, doc_count: 0 },
        ],
      },
    });
  });

  test('date_histogram by calendar month in UTC and in a +01:00 zone', async () => {
    expect(await aggs({ m: { date_histogram: { field: 'date', calendar_interval: 'month' } } })).toEqual({
      m: {
        buckets: [
          { key_as_string: '2020-01-01T00:00:00.000Z', key: JAN, doc_count: 2 },
          { key_as_string: '2020-02-01T00:00:00.000Z', key: FEB, doc_count: 1 },
          { key_as_string: '2020-03-01T00:00:00.000Z', key: MAR, doc_count: 1 },
        ],
      },
    });
    const zoned = await aggs({
      m: {
        date_histogram: { field: 'date', calendar_interval: '1M', time_zone: '+01:00', format: 'yyyy-MM' },
      },
    });
    expect(zoned).toEqual({
      m: {
        buckets: [
          { key_as_string: '2020-01', key: JAN - 3_600_000, doc_count: 2 },
          { key_as_string: '2020-02', key: FEB - 3_600_000, doc_count: 1 },
          { key_as_string: '2020-03', key: MAR - 3_600_000, doc_count: 0 },
          { key_as_string: '2020-04', key: Date.UTC(2020, 3, 1) - 3_600_000, doc_count: 1 },
        ],
      },
    });
  });

  test('date_histogram with a fixed interval and min_doc_count 1 skips empty buckets', async () => {
    const result = await aggs({
      w: { date_histogram: { field: 'date', fixed_interval: '30d', min_doc_count: 1 } },
    });
    const day = 86_400_000;
    const key = (iso: string): number => Math.floor(Date.parse(iso) / (30 * day)) * 30 * day;
    expect(
      (result.w as { buckets: Array<{ key: number; doc_count: number }> }).buckets.map((b) => [
        b.key,
        b.doc_count,
      ]),
    ).toEqual([
      [key('2020-01-01T10:00:00Z'), 1],
      [key('2020-01-15T00:00:00Z'), 2], // with 2020-02-03: 30-day buckets start 2020-01-09
      [key('2020-03-31T23:30:00Z'), 1],
    ]);
  });
});

describe('top_hits', () => {
  test('returns the best documents per bucket by the given sort with _source filtering', async () => {
    const result = await aggs({
      c: {
        terms: { field: 'category', size: 1 },
        aggs: { top: { top_hits: { size: 2, sort: [{ price: { order: 'desc' } }], _source: ['name'] } } },
      },
    });
    expect(result).toEqual({
      c: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 2,
        buckets: [
          {
            key: 'a',
            doc_count: 3,
            top: {
              hits: {
                total: { value: 3, relation: 'eq' },
                max_score: null,
                hits: [
                  {
                    _index: 'products',
                    _id: '2',
                    _score: null,
                    _source: { name: 'green apple' },
                    sort: [20],
                  },
                  { _index: 'products', _id: '1', _score: null, _source: { name: 'red apple' }, sort: [10] },
                ],
              },
            },
          },
        ],
      },
    });
  });
});

describe('runtime fields in aggregations', () => {
  test('terms and avg over script-computed values', async () => {
    const runtimeFields = compileRuntimeFields({
      upper: { type: 'keyword', script: { source: "emit(doc['category'].value.toUpperCase())" } },
      doubled: {
        type: 'double',
        script: {
          source: "if (doc['price'].size() > 0) { emit(doc['price'].value * params.k) }",
          params: { k: 2 },
        },
      },
    });
    expect(
      await aggs({ u: { terms: { field: 'upper' } }, d: { avg: { field: 'doubled' } } }, fx.all, {
        runtimeFields,
      }),
    ).toEqual({
      u: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'A', doc_count: 3 },
          { key: 'B', doc_count: 1 },
          { key: 'C', doc_count: 1 },
        ],
      },
      d: { value: 105.25 },
    });
  });

  test('a failing runtime script surfaces as script_exception', async () => {
    const runtimeFields = compileRuntimeFields({
      bad: { type: 'double', script: { source: "emit(doc['price'].value)" } },
    });
    const body = await failure({ b: { sum: { field: 'bad' } } }, { runtimeFields });
    expect(body.error).toMatchObject({
      type: 'script_exception',
      reason: 'runtime error',
      caused_by: { type: 'illegal_state_exception' },
    });
  });
});

describe('errors', () => {
  test('too many buckets answers too_many_buckets_exception with the limit', async () => {
    expect(await failure({ c: { terms: { field: 'category' } } }, { maxBuckets: 2 })).toEqual({
      error: {
        root_cause: [
          {
            type: 'too_many_buckets_exception',
            reason:
              'Trying to create too many buckets. Must be less than or equal to: [2] but was [3]. This limit can be set by changing the [search.max_buckets] cluster level setting.',
            max_buckets: 2,
          },
        ],
        type: 'too_many_buckets_exception',
        reason:
          'Trying to create too many buckets. Must be less than or equal to: [2] but was [3]. This limit can be set by changing the [search.max_buckets] cluster level setting.',
        max_buckets: 2,
      },
      status: 400,
    });
  });

  test.each<[string, unknown, string, string]>([
    [
      'an unknown type',
      { x: { bogus: { field: 'a' } } },
      'parsing_exception',
      'Unknown aggregation type [bogus]',
    ],
    [
      'two types',
      { x: { avg: { field: 'price' }, sum: { field: 'price' } } },
      'parsing_exception',
      'Found two aggregation type definitions in [x]: [avg] and [sum]',
    ],
    ['no type', { x: { aggs: {} } }, 'parsing_exception', 'Missing definition for aggregation [x]'],
    [
      'avg on a keyword',
      { x: { avg: { field: 'category' } } },
      'illegal_argument_exception',
      'Field [category] of type [keyword] is not supported for aggregation [avg]',
    ],
    [
      'a bad interval',
      { x: { histogram: { field: 'price', interval: 0 } } },
      'illegal_argument_exception',
      '[interval] must be >0 for histogram aggregation [x]',
    ],
  ])('%s is a 400 %s', async (_name, body, type, reason) => {
    const error = await failure(body);
    expect({ type: error.error.type, reason: error.error.reason, status: error.status }).toEqual({
      type,
      reason,
      status: 400,
    });
  });

  test('terms on a text field is refused as Elasticsearch refuses fielddata', async () => {
    const error = await failure({ x: { terms: { field: 'name' } } });
    expect(error.error.type).toBe('illegal_argument_exception');
    expect(error.error.reason).toMatch(
      /^Fielddata is disabled on \[name\] in \[products\]\. Text fields are not optimised/,
    );
  });
});

describe('more bucket shapes', () => {
  test('top_hits over a scored matched set orders by score and reports max_score', async () => {
    const scored = {
      sql: `SELECT doc_key, (CASE id WHEN '3' THEN 2.5 WHEN '1' THEN 1.5 ELSE 0.5 END)::float8 AS score FROM documents WHERE index_id = $1`,
      params: [fx.indexId],
      scored: true,
    };
    expect(await aggs({ t: { top_hits: { size: 2, _source: false } } }, scored)).toEqual({
      t: {
        hits: {
          total: { value: 5, relation: 'eq' },
          max_score: 2.5,
          hits: [
            { _index: 'products', _id: '3', _score: 2.5 },
            { _index: 'products', _id: '1', _score: 1.5 },
          ],
        },
      },
    });
  });

  test('terms under a histogram counts each bucket separately; keyed histograms are objects', async () => {
    expect(
      await aggs({
        h: {
          histogram: { field: 'qty', interval: 2, keyed: true },
          aggs: { c: { terms: { field: 'category' } } },
        },
      }),
    ).toEqual({
      h: {
        buckets: {
          '0': {
            key: 0,
            doc_count: 1,
            c: {
              doc_count_error_upper_bound: 0,
              sum_other_doc_count: 0,
              buckets: [{ key: 'a', doc_count: 1 }],
            },
          },
          '2': {
            key: 2,
            doc_count: 2,
            c: {
              doc_count_error_upper_bound: 0,
              sum_other_doc_count: 0,
              buckets: [
                { key: 'a', doc_count: 1 },
                { key: 'b', doc_count: 1 },
              ],
            },
          },
          '4': {
            key: 4,
            doc_count: 2,
            c: {
              doc_count_error_upper_bound: 0,
              sum_other_doc_count: 0,
              buckets: [
                { key: 'a', doc_count: 1 },
                { key: 'c', doc_count: 1 },
              ],
            },
          },
        },
      },
    });
  });

  test('terms nested in terms keeps each parent its own top buckets', async () => {
    const result = await aggs({
      s: {
        terms: { field: 'in_stock' },
        aggs: { c: { terms: { field: 'category', size: 1 }, aggs: { q: { sum: { field: 'qty' } } } } },
      },
    });
    expect(result).toEqual({
      s: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          {
            key: 1,
            key_as_string: 'true',
            doc_count: 2,
            c: {
              doc_count_error_upper_bound: 0,
              sum_other_doc_count: 1,
              buckets: [{ key: 'a', doc_count: 1, q: { value: 1 } }],
            },
          },
          {
            key: 0,
            key_as_string: 'false',
            doc_count: 1,
            c: {
              doc_count_error_upper_bound: 0,
              sum_other_doc_count: 0,
              buckets: [{ key: 'a', doc_count: 1, q: { value: 2 } }],
            },
          },
        ],
      },
    });
  });

  test('range keyed answers an object keyed by range key', async () => {
    expect(
      await aggs({ r: { range: { field: 'qty', keyed: true, ranges: [{ to: 3 }, { from: 3 }] } } }),
    ).toEqual({
      r: { buckets: { '*-3.0': { to: 3, doc_count: 2 }, '3.0-*': { from: 3, doc_count: 3 } } },
    });
  });
});

test('forEachDocumentChunk gives runtime scripts each document its doc values and _source', async () => {
  const docs: DocumentValues[] = [];
  await forEachDocumentChunk(
    fx.pool,
    fx.ctx,
    { sql: `SELECT doc_key FROM documents WHERE index_id = $1 AND id IN ('1', '5')`, params: [fx.indexId] },
    { limit: 10, withSource: true },
    (chunk) => docs.push(...chunk.values()),
  );
  const byId = docs.map((d) => ({
    name: d.source?.name,
    tags: d.docValues('tags'),
    price: d.docValues('price'),
    none: d.docValues('nope'),
  }));
  expect(byId).toEqual([
    {
      name: 'red apple',
      tags: { type: 'keyword', values: ['x', 'y'] },
      price: { type: 'double', values: [10] },
      none: undefined,
    },
    {
      name: 'date fruit',
      tags: { type: 'keyword', values: [] },
      price: { type: 'double', values: [] },
      none: undefined,
    },
  ]);
  await expect(
    forEachDocumentChunk(fx.pool, fx.ctx, fx.all, { limit: 2, withSource: true }, () => undefined),
  ).rejects.toThrow('[5] matched documents exceed the limit of [2]');
});

test('forEachDocumentChunk visits every matched document once, in doc_key order, a chunk at a time', async () => {
  const chunks: Array<Array<{ key: string; price: unknown; source: unknown }>> = [];
  const matched = {
    sql: 'SELECT doc_key FROM documents WHERE index_id = $1 UNION ALL SELECT doc_key FROM documents WHERE index_id = $1',
    params: [fx.indexId],
  };
  await forEachDocumentChunk(
    fx.pool,
    fx.ctx,
    matched,
    { limit: 10, withSource: false, chunkSize: 2 },
    (docs) => {
      chunks.push(
        [...docs].map(([key, d]) => ({ key, price: d.docValues('price')?.values, source: d.source })),
      );
    },
  );
  const { rows } = await fx.pool.query<{ doc_key: string; price: number | null }>(
    `SELECT d.doc_key::text AS doc_key, (d.source->>'price')::float8 AS price FROM documents d
      WHERE d.index_id = $1 ORDER BY d.doc_key`,
    [fx.indexId],
  );
  // Five documents (each matched twice above, visited once) in chunks of 2, 2 and 1; no _source unless asked.
  expect(chunks.map((c) => c.length)).toEqual([2, 2, 1]);
  expect(chunks.flat()).toEqual(
    rows.map((r) => ({ key: r.doc_key, price: r.price === null ? [] : [r.price], source: undefined })),
  );
  const withSource: unknown[] = [];
  await forEachDocumentChunk(
    fx.pool,
    fx.ctx,
    fx.all,
    { limit: 10, withSource: true, chunkSize: 3 },
    (docs) => {
      for (const d of docs.values()) withSource.push(d.source?.name);
    },
  );
  expect(withSource).toHaveLength(5);
  expect(withSource).toContain('red apple');
  // The limit counts matched rows before anything is loaded.
  await expect(
    forEachDocumentChunk(fx.pool, fx.ctx, matched, { limit: 9, withSource: false }, () => undefined),
  ).rejects.toThrow('[10] matched documents exceed the limit of [9]');
});

describe('match_all shortcut', () => {
  test('a matched set marked all reads doc values directly and answers exactly as the joined path', async () => {
    const body = {
      c: {
        terms: { field: 'category' },
        aggs: { p: { avg: { field: 'price' } }, q: { stats: { field: 'qty' } } },
      },
      n: { value_count: { field: 'qty' } },
      m: { avg: { field: 'price', missing: 7 } },
      h: { histogram: { field: 'qty', interval: 2 }, aggs: { t: { terms: { field: 'category' } } } },
    };
    const joined = await aggs(body, fx.all);
    const direct = await aggs(body, { ...fx.all, all: true });
    expect(direct).toEqual(joined);
    expect(direct.n).toEqual({ value: 5 });
  });
});
