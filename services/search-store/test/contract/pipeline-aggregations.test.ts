import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** ES "Pipeline aggregations" over the official client and raw HTTP, on real Postgres. */
describe('pipeline aggregations', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'pipes';
  beforeAll(async () => {
    await es().indices.create({
      index,
      mappings: { properties: { t: { type: 'date' }, v: { type: 'long' }, tag: { type: 'keyword' } } },
    });
    const docs = [
      { t: '2022-01-01T00:00:00Z', v: -1, tag: 'a' },
      { t: '2022-01-01T02:00:00Z', v: -2, tag: 'a' },
      { t: '2022-01-01T03:00:00Z', v: -1, tag: 'b' },
    ];
    await es().bulk({ index, refresh: true, operations: docs.flatMap((d) => [{ index: {} }, d]) });
  });

  const hourly = {
    date_histogram: { field: 't', fixed_interval: '1h' },
    aggs: { v: { avg: { field: 'v' } } },
  };

  it('max_bucket with each gap policy and format, through the official client', async () => {
    const response = await es().search({
      index,
      size: 0,
      aggs: {
        h: hourly,
        skip: { max_bucket: { buckets_path: 'h>v', format: '0.00' } },
        zeros: { max_bucket: { buckets_path: 'h>v', gap_policy: 'insert_zeros' } },
        keep: { max_bucket: { buckets_path: 'h>v', gap_policy: 'keep_values' } },
      },
    });
    const aggs = response.aggregations as Json;
    expect(aggs.h.buckets).toHaveLength(4);
    expect(aggs.skip).toEqual({
      value: -1,
      value_as_string: '-1.00',
      keys: ['2022-01-01T00:00:00.000Z', '2022-01-01T03:00:00.000Z'],
    });
    expect(aggs.zeros).toEqual({ value: 0, keys: ['2022-01-01T01:00:00.000Z'] });
    expect(aggs.keep.value).toBe(-1);
  });

  it('cumulative_sum, derivative, bucket_script, bucket_selector and bucket_sort over raw HTTP', async () => {
    const response = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: {
        h: {
          ...hourly,
          aggs: {
            ...hourly.aggs,
            s: { sum: { field: 'v' } },
            running: { cumulative_sum: { buckets_path: 's' } },
            change: { derivative: { buckets_path: 's', unit: '1m' } },
          },
        },
        tags: {
          terms: { field: 'tag' },
          aggs: {
            s: { sum: { field: 'v' } },
            twice: { bucket_script: { buckets_path: { x: 's' }, script: 'params.x * 2' } },
            negative: { bucket_selector: { buckets_path: { x: 's' }, script: 'params.x < -1' } },
            order: { bucket_sort: { sort: [{ s: { order: 'asc' } }], size: 5 } },
          },
        },
      },
    });
    expect(response.status).toBe(200);
    const aggs = (response.json as Json).aggregations as Json;
    expect(aggs.h.buckets.map((b: Json) => b.running.value)).toEqual([-1, -1, -3, -4]);
    expect(aggs.h.buckets[0]).not.toHaveProperty('change');
    // 01:00 is empty: a gap (skip), so its derivative and the next one are null.
    expect(aggs.h.buckets[1].change).toEqual({ value: null, normalized_value: null });
    expect(aggs.h.buckets[3].change).toEqual({ value: 1, normalized_value: 1 / 60 });
    expect(aggs.tags.buckets).toEqual([{ key: 'a', doc_count: 2, s: { value: -3 }, twice: { value: -6 } }]);
  });

  it('writes a pipeline named __proto__ or constructor into each bucket as any other name', async () => {
    const response = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: {
        h: {
          date_histogram: { field: 't', fixed_interval: '1h' },
          aggs: {
            s: { sum: { field: 'v' } },
            ['__proto__']: { cumulative_sum: { buckets_path: 's' } },
            constructor: { max_bucket: { buckets_path: 'inner>s' } },
            inner: { terms: { field: 'tag' }, aggs: { s: { sum: { field: 'v' } } } },
          },
        },
      },
    });
    expect(response.status).toBe(200);
    // The raw text: a parsed `__proto__` key would not show as an own property.
    const text = response.text;
    const buckets = (JSON.parse(text) as Json).aggregations.h.buckets as Json[];
    expect(buckets).toHaveLength(4);
    expect(text.match(/"__proto__":\{"value":-?\d+(\.\d+)?\}/g)).toHaveLength(4);
    expect(buckets[0]!.constructor).toMatchObject({ value: -1 });
  });

  it('answers Elasticsearch’s validation errors with 400', async () => {
    const missing = await failure(
      es().search({ index, aggs: { h: hourly, m: { max_bucket: { buckets_path: 'nope>v' } } } }),
    );
    expect(missing.status).toBe(400);
    expect((missing.body as Json).error.type).toBe('action_request_validation_exception');
    expect((missing.body as Json).error.reason).toBe(
      'Validation Failed: 1: No aggregation found for path [nope>v];',
    );
    const topLevel = await call(server.url, 'POST', `/${index}/_search`, {
      aggs: { h: hourly, sort: { bucket_sort: { sort: ['h>v'] } } },
    });
    expect(topLevel.status).toBe(400);
    expect((topLevel.json as Json).error.reason).toBe(
      'Validation Failed: 1: bucket_sort aggregation [sort] must be declared inside of another aggregation;',
    );
    const nested = await call(server.url, 'POST', `/${index}/_search`, {
      aggs: {
        tags: { terms: { field: 'tag' }, aggs: { h: hourly } },
        m: { max_bucket: { buckets_path: 'tags>h' } },
      },
    });
    expect(nested.status).toBe(400);
    expect((nested.json as Json).error.type).toBe('aggregation_execution_exception');
    expect((nested.json as Json).error.reason).toBe(
      'buckets_path must reference either a number value or a single value numeric metric aggregation, got: [InternalDateHistogram] at aggregation [h]',
    );
  });
});
