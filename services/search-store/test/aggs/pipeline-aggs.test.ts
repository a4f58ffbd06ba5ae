import { runAggregations } from '../../src/aggs/run-aggregations';
import { formatDecimal } from '../../src/aggs/pipeline/decimal-format';
import { createAggFixture, type AggFixture } from './aggs-fixture';
import { fixtureAggsFailure, runFixtureAggs, type Json } from './run-fixture-aggs';

/*
 * The fixture: category a (prices 10, 20, one document without price), b (30.5), c (150); dates in
 * January (10, 20), February (30.5) and March (150) 2020.
 */
let fx: AggFixture;
beforeAll(async () => {
  fx = await createAggFixture();
});
afterAll(async () => {
  await fx.stop();
});

const aggs = (body: unknown) => runFixtureAggs(fx, body);
const failure = (body: unknown) => fixtureAggsFailure(fx, body);

const byCategory = { terms: { field: 'category' }, aggs: { p: { avg: { field: 'price' } } } };
const months = {
  date_histogram: { field: 'date', calendar_interval: 'month' },
  aggs: { s: { sum: { field: 'price' } } },
};
/** Buckets 0 (3 docs, avg 60.5 / 3), 50 and 100 (empty: gaps), 150 (1 doc). */
const priceHisto = { histogram: { field: 'price', interval: 50 }, aggs: { p: { avg: { field: 'price' } } } };

describe('sibling pipeline aggregations', () => {
  it('max_bucket and min_bucket report the value and the keys of the best buckets', async () => {
    const out = await aggs({
      cats: byCategory,
      top: { max_bucket: { buckets_path: 'cats>p' } },
      low: { min_bucket: { buckets_path: 'cats>p' } },
    });
    expect(out.top).toEqual({ value: 150, keys: ['c'] });
    expect(out.low).toEqual({ value: 15, keys: ['a'] });
  });

  it('avg/sum/stats/extended_stats_bucket over a date histogram, keys as key_as_string', async () => {
    const out = await aggs({
      months,
      avg: { avg_bucket: { buckets_path: 'months>s' } },
      sum: { sum_bucket: { buckets_path: 'months>s' } },
      min: { min_bucket: { buckets_path: 'months>s' } },
      stats: { stats_bucket: { buckets_path: 'months>s' } },
      ext: { extended_stats_bucket: { buckets_path: 'months>s', sigma: 1 } },
    });
    expect(out.avg.value).toBeCloseTo(210.5 / 3, 10);
    expect(out.sum).toEqual({ value: 210.5 });
    expect(out.min).toEqual({ value: 30, keys: ['2020-01-01T00:00:00.000Z'] });
    expect(out.stats).toEqual({ count: 3, min: 30, max: 150, avg: 210.5 / 3, sum: 210.5 });
    const mean = 210.5 / 3;
    const variance = (30 ** 2 + 30.5 ** 2 + 150 ** 2) / 3 - mean ** 2;
    expect(out.ext.sum_of_squares).toBeCloseTo(30 ** 2 + 30.5 ** 2 + 150 ** 2, 8);
    expect(out.ext.variance).toBeCloseTo(variance, 8);
    expect(out.ext.std_deviation).toBeCloseTo(Math.sqrt(variance), 8);
    expect(out.ext.variance_sampling).toBeCloseTo((variance * 3) / 2, 8);
    expect(out.ext.std_deviation_bounds.upper).toBeCloseTo(mean + Math.sqrt(variance), 8);
  });

  it('reads `_count`, a stats value and `_bucket_count`', async () => {
    const out = await aggs({
      cats: { terms: { field: 'category' }, aggs: { st: { stats: { field: 'price' } } } },
      most: { max_bucket: { buckets_path: 'cats>_count' } },
      avgs: { sum_bucket: { buckets_path: 'cats>st.avg' } },
      counts: { sum_bucket: { buckets_path: 'cats._count' } },
    });
    expect(out.most).toEqual({ value: 3, keys: ['a'] });
    expect(out.avgs).toEqual({ value: 15 + 30.5 + 150 });
    expect(out.counts).toEqual({ value: 5 });
  });

  it('gap_policy: skip leaves empty buckets out, insert_zeros counts them as 0, keep_values skips null metrics', async () => {
    const out = await aggs({
      h: priceHisto,
      skip: { min_bucket: { buckets_path: 'h>p' } },
      zeros: { min_bucket: { buckets_path: 'h>p', gap_policy: 'insert_zeros' } },
      keep: { avg_bucket: { buckets_path: 'h>p', gap_policy: 'keep_values' } },
      none: { avg_bucket: { buckets_path: 'h>_count', gap_policy: 'skip' } },
    });
    expect(out.h.buckets.map((b: Json) => b.doc_count)).toEqual([3, 0, 0, 1]);
    expect(out.skip).toEqual({ value: 60.5 / 3, keys: ['0'] });
    expect(out.zeros).toEqual({ value: 0, keys: ['50', '100'] });
    expect(out.keep).toEqual({ value: (60.5 / 3 + 150) / 2 });
    // A doc count of 0 is a value, not a gap.
    expect(out.none).toEqual({ value: 1 });
  });

  it('format renders value_as_string with a DecimalFormat pattern', async () => {
    const out = await aggs({
      cats: byCategory,
      top: { max_bucket: { buckets_path: 'cats>p', format: '0.00' } },
    });
    expect(out.top).toEqual({ value: 150, value_as_string: '150.00', keys: ['c'] });
    expect(formatDecimal('#,##0.0', 1234567.25)).toBe('1,234,567.2');
    expect(formatDecimal('0.###', 2)).toBe('2');
    expect(formatDecimal('$0.00', -3.5)).toBe('-$3.50');
  });

  it('an empty sibling gives value null (max, avg) or 0 (sum) and no keys', async () => {
    const out = await runAggregations(fx.pool, fx.ctx, fx.none, {
      cats: byCategory,
      top: { max_bucket: { buckets_path: 'cats>p' } },
      sum: { sum_bucket: { buckets_path: 'cats>p' } },
    });
    expect(out.top).toEqual({ value: null, keys: [] });
    expect(out.sum).toEqual({ value: 0 });
  });

  it('a pipeline inside buckets reads that bucket’s sub-aggregations', async () => {
    const out = await aggs({
      cats: {
        terms: { field: 'category' },
        aggs: {
          h: { histogram: { field: 'qty', interval: 1 } },
          busiest: { max_bucket: { buckets_path: 'h>_count' } },
        },
      },
    });
    expect(out.cats.buckets[0].key).toBe('a');
    expect(out.cats.buckets[0].busiest).toEqual({ value: 1, keys: ['1', '2', '5'] });
  });
});

describe('parent pipeline aggregations', () => {
  it('cumulative_sum and derivative (with unit) over a date histogram', async () => {
    const out = await aggs({
      months: {
        ...months,
        aggs: {
          ...months.aggs,
          total: { cumulative_sum: { buckets_path: 's' } },
          d: { derivative: { buckets_path: 's', unit: '1d' } },
          dd: { derivative: { buckets_path: 'd' } },
        },
      },
    });
    const [jan, feb, mar] = out.months.buckets as Json[];
    expect([jan?.total, feb?.total, mar?.total]).toEqual([{ value: 30 }, { value: 60.5 }, { value: 210.5 }]);
    expect(jan).not.toHaveProperty('d');
    expect(feb?.d).toEqual({ value: 0.5, normalized_value: 0.5 / 31 });
    expect(mar?.d.value).toBe(119.5);
    expect(mar?.d.normalized_value).toBeCloseTo(119.5 / 29, 10);
    // A derivative of a derivative: January's derivative is a gap, so February's is null.
    expect(jan).not.toHaveProperty('dd');
    expect(feb?.dd).toEqual({ value: null });
    expect(mar?.dd).toEqual({ value: 119 });
  });

  it('derivative over gaps: null under skip, numbers under insert_zeros', async () => {
    const out = await aggs({
      h: {
        ...priceHisto,
        aggs: {
          ...priceHisto.aggs,
          skip: { derivative: { buckets_path: 'p' } },
          zeros: { derivative: { buckets_path: 'p', gap_policy: 'insert_zeros' } },
        },
      },
    });
    const buckets = out.h.buckets as Json[];
    expect(buckets.map((b) => b.skip?.value)).toEqual([undefined, null, null, null]);
    expect(buckets.map((b) => b.zeros?.value)).toEqual([undefined, -60.5 / 3, 0, 150]);
  });

  it('bucket_script computes per bucket from named paths and params; bucket_selector drops buckets', async () => {
    const out = await aggs({
      cats: {
        terms: { field: 'category' },
        aggs: {
          s: { sum: { field: 'price' } },
          perDoc: {
            bucket_script: {
              buckets_path: { sum: 's', n: '_count' },
              script: { source: 'params.sum / params.n * params.k', params: { k: 2 } },
              format: '0.0',
            },
          },
          several: { bucket_selector: { buckets_path: { n: '_count' }, script: 'params.n > 1' } },
        },
      },
    });
    expect(out.cats.buckets).toHaveLength(1);
    expect(out.cats.buckets[0]).toMatchObject({
      key: 'a',
      doc_count: 3,
      perDoc: { value: 20, value_as_string: '20.0' },
    });
    expect(out.cats.buckets[0]).not.toHaveProperty('several');
  });

  it('bucket_sort sorts by a metric, then pages with from and size', async () => {
    const body = (extra: Json): Json => ({
      cats: {
        terms: { field: 'category' },
        aggs: { s: { sum: { field: 'price' } }, sorted: { bucket_sort: extra } },
      },
    });
    const bySum = await aggs(body({ sort: [{ s: { order: 'desc' } }], size: 2 }));
    expect(bySum.cats.buckets.map((b: Json) => b.key)).toEqual(['c', 'b']);
    const page = await aggs(body({ sort: [{ s: 'desc' }], from: 1, size: 1 }));
    expect(page.cats.buckets.map((b: Json) => b.key)).toEqual(['b']);
    const byKey = await aggs(body({ sort: [{ _key: 'desc' }] }));
    expect(byKey.cats.buckets.map((b: Json) => b.key)).toEqual(['c', 'b', 'a']);
  });

  it('bucket_selector keeps keyed buckets keyed', async () => {
    const out = await aggs({
      h: {
        histogram: { field: 'price', interval: 50, keyed: true },
        aggs: { keep: { bucket_selector: { buckets_path: { n: '_count' }, script: 'params.n > 0' } } },
      },
    });
    expect(Array.isArray(out.h.buckets)).toBe(false);
    expect(Object.keys(out.h.buckets)).toEqual(['0', '150']);
    expect(Object.values(out.h.buckets).map((b) => (b as Json).doc_count)).toEqual([3, 1]);
  });
});

describe('pipeline errors (Elasticsearch validation messages)', () => {
  it('refuses a path to no aggregation', async () => {
    expect(await failure({ cats: byCategory, m: { max_bucket: { buckets_path: 'nope>p' } } })).toEqual({
      status: 400,
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: No aggregation found for path [nope>p];',
    });
  });

  it('refuses a sibling path that starts at a metric', async () => {
    const error = await failure({ p: { avg: { field: 'price' } }, m: { max_bucket: { buckets_path: 'p' } } });
    expect(error.type).toBe('action_request_validation_exception');
    expect(error.reason).toBe(
      'Validation Failed: 1: The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [m] found :org.elasticsearch.search.aggregations.metrics.AvgAggregationBuilder for buckets path: p;',
    );
  });

  it('refuses a path through or ending at a multi-bucket aggregation', async () => {
    const nested = {
      t: {
        terms: { field: 'category' },
        aggs: { t2: { terms: { field: 'category' }, aggs: { m: { max: { field: 'price' } } } } },
      },
    };
    expect(await failure({ ...nested, bad: { max_bucket: { buckets_path: 't>t2>m' } } })).toEqual({
      status: 400,
      type: 'aggregation_execution_exception',
      reason:
        'buckets_path must reference either a number value or a single value numeric metric aggregation, got: [Object[]] at aggregation [t2]',
    });
    const ending = await failure({ ...nested, bad: { max_bucket: { buckets_path: 't>t2' } } });
    expect(ending.reason).toContain('got: [StringTerms] at aggregation [t2]');
  });

  it('parent pipelines need a (histogram) parent', async () => {
    expect((await failure({ d: { derivative: { buckets_path: '_count' } } })).reason).toBe(
      'Validation Failed: 1: derivative aggregation [d] must be declared inside of another aggregation;',
    );
    expect((await failure({ s: { bucket_sort: { sort: ['_key'] } } })).reason).toBe(
      'Validation Failed: 1: bucket_sort aggregation [s] must be declared inside of another aggregation;',
    );
    const underTerms = await failure({
      cats: { terms: { field: 'category' }, aggs: { d: { cumulative_sum: { buckets_path: '_count' } } } },
    });
    expect(underTerms).toEqual({
      status: 400,
      type: 'action_request_validation_exception',
      reason:
        'Validation Failed: 1: cumulative_sum aggregation [d] must have a histogram, date_histogram or auto_date_histogram as parent;',
    });
  });

  it('refuses bad fields, gap policies, sub-aggregations and missing paths', async () => {
    expect(
      await failure({ cats: byCategory, m: { max_bucket: { buckets_path: 'cats>p', gap_policy: 'zero' } } }),
    ).toEqual({
      status: 400,
      type: 'illegal_argument_exception',
      reason: 'Invalid gap policy: [zero], accepted values: [skip, insert_zeros, keep_values]',
    });
    expect(
      (await failure({ cats: byCategory, m: { max_bucket: { buckets_path: 'cats>p', foo: 1 } } })).reason,
    ).toBe('[max_bucket] unknown field [foo]');
    expect((await failure({ cats: byCategory, m: { max_bucket: {} } })).reason).toBe(
      'Missing required field [buckets_path] for max_bucket aggregation [m]',
    );
    expect(
      (
        await failure({
          cats: byCategory,
          m: { max_bucket: { buckets_path: 'cats>p' }, aggs: { x: { avg: { field: 'price' } } } },
        })
      ).type,
    ).toBe('parsing_exception');
  });

  it('scripts: a compile error is a script_exception, a non-number result an execution error, a loop is bounded', async () => {
    const script = (source: string): Json => ({
      cats: {
        terms: { field: 'category' },
        aggs: { x: { bucket_script: { buckets_path: { n: '_count' }, script: source } } },
      },
    });
    expect((await failure(script('params.n +'))).type).toBe('script_exception');
    expect(await failure(script("'text'"))).toEqual({
      status: 400,
      type: 'aggregation_execution_exception',
      reason: 'series_arithmetic script for reducer [x] must return a Number',
    });
    const started = Date.now();
    expect((await failure(script('while (true) {} return 1;'))).type).toBe('script_exception');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('dictionary keys from the client stay data: __proto__ as a path variable and as an aggregation name', async () => {
    // JSON.parse, as the HTTP layer does: `__proto__` becomes an own key (a literal would set the prototype).
    const out = await aggs(
      JSON.parse(`{
        "__proto__": {"terms": {"field": "category"}, "aggs": {"p": {"avg": {"field": "price"}}}},
        "cats": {"terms": {"field": "category"}, "aggs": {
          "constructor": {"bucket_script": {"buckets_path": {"__proto__": "_count"}, "script": "params.__proto__ * 2"}}}},
        "top": {"max_bucket": {"buckets_path": "__proto__>p"}}
      }`),
    );
    expect(out.top).toEqual({ value: 150, keys: ['c'] });
    expect(out.cats.buckets[0].constructor).toEqual({ value: 6 });
  });
});
