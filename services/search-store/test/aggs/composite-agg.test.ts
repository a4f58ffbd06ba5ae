import { createAggFixture, type AggFixture } from './aggs-fixture';
import { fixtureAggsFailure, runFixtureAggs, type Json } from './run-fixture-aggs';

/* The fixture: category a (docs 1, 2, 5), b (3), c (4); tags [x, y] on 1, [x] on 2, none elsewhere. */
let fx: AggFixture;
beforeAll(async () => {
  fx = await createAggFixture();
});
afterAll(async () => {
  await fx.stop();
});

const aggs = (body: unknown) => runFixtureAggs(fx, body);
const failure = (body: unknown) => fixtureAggsFailure(fx, body);

const composite = (extra: Json, missingBucket = false): Json => ({
  c: {
    composite: {
      sources: [
        { cat: { terms: { field: 'category' } } },
        { tag: { terms: { field: 'tags', missing_bucket: missingBucket } } },
      ],
      ...extra,
    },
  },
});

describe('composite aggregation', () => {
  it('multiplies a document’s values into key tuples, in key order, with after_key', async () => {
    const out = await aggs(composite({ size: 2 }));
    expect(out.c).toEqual({
      after_key: { cat: 'a', tag: 'y' },
      buckets: [
        { key: { cat: 'a', tag: 'x' }, doc_count: 2 },
        { key: { cat: 'a', tag: 'y' }, doc_count: 1 },
      ],
    });
    // Without missing_bucket, documents without tags are in no bucket: the next page is empty.
    const next = await aggs(composite({ size: 2, after: out.c.after_key }));
    expect(next.c).toEqual({ buckets: [] });
  });

  it('pages through every bucket exactly once with missing_bucket (nulls first ascending)', async () => {
    const seen: Json[] = [];
    let after: Json | undefined;
    for (let page = 0; page < 10; page++) {
      const out = await aggs(composite({ size: 2, ...(after ? { after } : {}) }, true));
      seen.push(...(out.c.buckets as Json[]).map((b) => ({ ...b.key, n: b.doc_count })));
      if (!out.c.after_key) break;
      after = out.c.after_key as Json;
    }
    expect(seen).toEqual([
      { cat: 'a', tag: null, n: 1 },
      { cat: 'a', tag: 'x', n: 2 },
      { cat: 'a', tag: 'y', n: 1 },
      { cat: 'b', tag: null, n: 1 },
      { cat: 'c', tag: null, n: 1 },
    ]);
    const all = await aggs(composite({ size: 10 }, true));
    expect(all.c.buckets).toHaveLength(5);
    expect(all.c.after_key).toEqual({ cat: 'c', tag: null });
  });

  it('histogram and date_histogram sources, descending order, sub-aggregations per bucket', async () => {
    const out = await aggs({
      c: {
        composite: {
          size: 10,
          sources: [
            { p: { histogram: { field: 'price', interval: 50, order: 'desc' } } },
            { m: { date_histogram: { field: 'date', calendar_interval: 'month' } } },
          ],
        },
        aggs: { q: { sum: { field: 'qty' } } },
      },
    });
    expect(out.c.buckets).toEqual([
      { key: { p: 150, m: Date.UTC(2020, 2, 1) }, doc_count: 1, q: { value: 4 } },
      { key: { p: 0, m: Date.UTC(2020, 0, 1) }, doc_count: 2, q: { value: 3 } },
      { key: { p: 0, m: Date.UTC(2020, 1, 1) }, doc_count: 1, q: { value: 3 } },
    ]);
    const after = await aggs({
      c: {
        composite: {
          sources: [
            { p: { histogram: { field: 'price', interval: 50, order: 'desc' } } },
            { m: { date_histogram: { field: 'date', calendar_interval: 'month' } } },
          ],
          after: { p: 0, m: '2020-01-01T00:00:00Z' },
        },
      },
    });
    expect(after.c.buckets).toEqual([{ key: { p: 0, m: Date.UTC(2020, 1, 1) }, doc_count: 1 }]);
  });

  it('source names from the client are data (__proto__)', async () => {
    const out = await aggs(
      JSON.parse(
        '{"c": {"composite": {"sources": [{"__proto__": {"terms": {"field": "category"}}}], "size": 1}}}',
      ),
    );
    expect(Object.keys(out.c.after_key)).toEqual(['__proto__']);
    expect(out.c.buckets[0].key).toEqual(JSON.parse('{"__proto__": "a"}'));
  });

  it('refuses a parent, a bad after, size 0, and unknown sources', async () => {
    expect(await failure({ t: { terms: { field: 'category' }, aggs: composite({}) } })).toEqual({
      status: 400,
      type: 'illegal_argument_exception',
      reason: '[composite] aggregation cannot be used with a parent aggregation of type: [terms]',
    });
    expect((await failure(composite({ after: { cat: 'a' } }))).reason).toBe(
      '[after] has 1 value(s) but [sources] has 2',
    );
    expect((await failure(composite({ size: 0 }))).reason).toBe(
      '[size] must be greater than 0. Found [0] in [c]',
    );
    expect((await failure({ c: { composite: { sources: [{ x: { geo: { field: 'a' } } }] } } })).type).toBe(
      'parsing_exception',
    );
    expect((await failure({ c: { composite: { sources: [] } } })).reason).toBe(
      'Composite [sources] cannot be null or empty',
    );
  });
});
