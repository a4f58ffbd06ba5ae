import { uniqueId } from '@acme/testkit';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';
import { MAX_AGG_DEPTH, MAX_AGGS } from '../../src/aggs/agg-limits';

/** Issue 17: one hostile search must answer a quick 400, never tie up Postgres or answer 500. */
describe('bounded aggregation and query trees, and aggregations keyed by the client', () => {
  let store: RunningSearchStore;
  const index = uniqueId('bounds')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  beforeAll(async () => {
    store = await startSearchStore();
    await call(store.url, 'PUT', `/${index}`, {
      mappings: {
        properties: { tag: { type: 'keyword' }, at: { type: 'date' }, views: { type: 'integer' } },
      },
    });
    const lines = [
      { index: { _id: '1' } },
      { tag: 'a', at: '2024-01-10', views: 3 },
      { index: { _id: '2' } },
      { tag: 'b', at: '2024-02-01', views: 5 },
    ];
    const bulk = await call(
      store.url,
      'POST',
      `/${index}/_bulk?refresh=true`,
      lines.map((line) => JSON.stringify(line)).join('\n') + '\n',
      { 'content-type': 'application/x-ndjson' },
    );
    expect(bulk.status).toBe(200);
  });
  afterAll(async () => {
    await store.stop();
  });

  const search = (body: unknown) => call(store.url, 'POST', `/${index}/_search`, body);
  const nestedTerms = (depth: number) => {
    let aggs: Record<string, unknown> = { [`a${depth - 1}`]: { terms: { field: 'tag' } } };
    for (let level = depth - 2; level >= 0; level--)
      aggs = { [`a${level}`]: { terms: { field: 'tag' }, aggs } };
    return aggs;
  };

  it('refuses terms aggregations nested 200 deep at once with parsing_exception', async () => {
    const started = Date.now();
    const response = await search({ size: 0, aggs: nestedTerms(200) });
    expect(Date.now() - started).toBeLessThan(2000);
    const reason = `The nested depth of the aggregations exceeds the maximum nested depth for aggregations of [${MAX_AGG_DEPTH}] set in [search.aggs.max_nested_depth]`;
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: { root_cause: [{ type: 'parsing_exception', reason }], type: 'parsing_exception', reason },
      status: 400,
    });
  });

  it(`accepts ${MAX_AGG_DEPTH} levels and refuses one more`, async () => {
    const deepest = await search({ size: 0, aggs: nestedTerms(MAX_AGG_DEPTH) });
    expect(deepest.status).toBe(200);
    let bucket = deepest.json as Record<string, unknown>;
    bucket = bucket.aggregations as Record<string, unknown>;
    for (let level = 0; level < MAX_AGG_DEPTH; level++) {
      const buckets = (bucket[`a${level}`] as { buckets: Array<Record<string, unknown>> }).buckets;
      // Below the top level, bucket "a" holds document 1 only.
      expect(buckets.map((b) => b.key)).toEqual(level === 0 ? ['a', 'b'] : ['a']);
      bucket = buckets[0]!;
    }
    expect((await search({ size: 0, aggs: nestedTerms(MAX_AGG_DEPTH + 1) })).status).toBe(400);
  });

  it(`refuses more than ${MAX_AGGS} aggregations in one request`, async () => {
    const aggs = Object.fromEntries(
      Array.from({ length: MAX_AGGS + 1 }, (_v, i) => [`m${i}`, { max: { field: 'views' } }]),
    );
    const response = await search({ size: 0, aggs });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: expect.stringContaining(`Must be less than or equal to: [${MAX_AGGS}]`),
      },
    });
  });

  it('refuses nested filters aggregations whose SQL would repeat the documents thousands of times', async () => {
    const filters = Object.fromEntries(
      Array.from({ length: 10 }, (_v, i) => [`f${i}`, { range: { views: { gte: i } } }]),
    );
    let aggs: Record<string, unknown> = { l3: { filters: { filters } } };
    for (const name of ['l2', 'l1', 'l0']) aggs = { [name]: { filters: { filters }, aggs } };
    const started = Date.now();
    const response = await search({ size: 0, aggs });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: expect.stringContaining(
          'Aggregation [l0>l1>l2] would repeat the matched documents [1000] times',
        ),
      },
    });
  });

  const nestedBool = (bools: number) => {
    let query: unknown = { term: { tag: 'a' } };
    for (let i = 0; i < bools; i++) query = { bool: { must: [query] } };
    return query;
  };

  it('answers bool queries nested 30 deep (ES 8 indices.query.bool.max_nested_depth)', async () => {
    const response = await search({ query: nestedBool(29) });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ hits: { total: { value: 1 }, hits: [{ _id: '1' }] } });
  });

  it('refuses bool queries nested 200 deep with ES 8 x_content_parse_exception', async () => {
    const response = await search({ query: nestedBool(200) });
    expect(response.status).toBe(400);
    const body = response.json as { error: Record<string, unknown>; status: number };
    expect(body.error).toMatchObject({
      type: 'x_content_parse_exception',
      reason: expect.stringMatching(/^\[1:\d+\] \[bool\] failed to parse field \[must\]$/),
    });
    let cause = body.error;
    while (cause.type === 'x_content_parse_exception') cause = cause.caused_by as Record<string, unknown>;
    expect(cause).toEqual({
      type: 'illegal_argument_exception',
      reason:
        'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.bool.max_nested_depth]',
    });
  });

  it('answers calendar_interval "constructor" with 400, not 500', async () => {
    const response = await search({
      size: 0,
      aggs: { h: { date_histogram: { field: 'at', calendar_interval: 'constructor' } } },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'The supplied interval [constructor] could not be parsed as a calendar interval.',
      },
    });
  });

  it('answers a query named "constructor" as an unknown query, not 500', async () => {
    const response = await search({ query: { constructor: {} } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: { type: 'parsing_exception', reason: expect.stringContaining('unknown query [constructor]') },
    });
  });

  it.each([
    ['the path in front of express', `/${'INDEX'}/_search`],
    ['the express route', `/${'INDEX'}/_search?ignore_unavailable=false`],
  ])('returns aggregations named __proto__, constructor and toString (%s)', async (_name, path) => {
    // Written as text: an object literal cannot hold an own "__proto__" key.
    const body =
      '{"size":0,"aggs":{"__proto__":{"terms":{"field":"tag"},"aggs":{"constructor":{"max":{"field":"views"}}}},' +
      '"constructor":{"max":{"field":"views"}},"toString":{"min":{"field":"views"}}}}';
    const response = await call(store.url, 'POST', path.replace('INDEX', index), body);
    expect(response.status).toBe(200);
    const aggregations = (response.json as { aggregations: Record<string, unknown> }).aggregations;
    expect(Object.keys(aggregations).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    const terms = Object.getOwnPropertyDescriptor(aggregations, '__proto__')?.value as {
      buckets: Array<Record<string, unknown>>;
    };
    expect(terms.buckets.map((b) => [b.key, b.doc_count, b.constructor])).toEqual([
      ['a', 1, { value: 3 }],
      ['b', 1, { value: 5 }],
    ]);
    expect(aggregations.constructor).toEqual({ value: 5 });
    expect(aggregations.toString).toEqual({ value: 3 });
  });
});
