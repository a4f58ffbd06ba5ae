import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** ES "Composite aggregation" through the official client and raw HTTP, on real Postgres. */
describe('composite aggregation', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'composite';
  beforeAll(async () => {
    await es().indices.create({
      index,
      mappings: { properties: { kw: { type: 'keyword' }, n: { type: 'long' }, d: { type: 'date' } } },
    });
    const docs = [
      { kw: ['a', 'b'], n: 1, d: '2017-10-20T03:08:45Z' },
      { kw: 'a', n: 2, d: '2017-10-21T07:00:00Z' },
      { kw: 'c', n: 1 },
      { n: 3, d: '2017-10-20T00:00:00Z' },
    ];
    await es().bulk({ index, refresh: true, operations: docs.flatMap((doc) => [{ index: {} }, doc]) });
  });

  it('pages with after_key until no buckets are left (official client)', async () => {
    const keys: unknown[] = [];
    let after: Record<string, unknown> | undefined;
    for (let page = 0; page < 10; page++) {
      const response = await es().search({
        index,
        size: 0,
        aggs: {
          c: {
            composite: {
              size: 2,
              sources: [
                { kw: { terms: { field: 'kw', missing_bucket: true } } },
                { n: { terms: { field: 'n' } } },
              ],
              ...(after ? { after } : {}),
            },
          },
        },
      });
      const c = (response.aggregations as Json).c as Json;
      keys.push(...(c.buckets as Json[]).map((b) => [b.key.kw, b.key.n, b.doc_count]));
      if (!c.after_key) break;
      after = c.after_key as Record<string, unknown>;
    }
    expect(keys).toEqual([
      [null, 3, 1],
      ['a', 1, 1],
      ['a', 2, 1],
      ['b', 1, 1],
      ['c', 1, 1],
    ]);
  });

  it('date_histogram source with format, and a bad after over raw HTTP', async () => {
    const response = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      aggs: {
        c: {
          composite: {
            sources: [
              { day: { date_histogram: { field: 'd', calendar_interval: '1d', format: 'yyyy-MM-dd' } } },
            ],
          },
        },
      },
    });
    expect(response.status).toBe(200);
    expect((response.json as Json).aggregations.c).toEqual({
      after_key: { day: '2017-10-21' },
      buckets: [
        { key: { day: '2017-10-20' }, doc_count: 2 },
        { key: { day: '2017-10-21' }, doc_count: 1 },
      ],
    });
    const bad = await call(server.url, 'POST', `/${index}/_search`, {
      aggs: { c: { composite: { sources: [{ kw: { terms: { field: 'kw' } } }], after: { kw: 'a', x: 1 } } } },
    });
    expect(bad.status).toBe(400);
    expect((bad.json as Json).error.type).toBe('illegal_argument_exception');
    expect((bad.json as Json).error.reason).toBe('[after] has 2 value(s) but [sources] has 1');
  });
});
