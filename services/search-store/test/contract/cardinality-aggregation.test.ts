import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** ES "Cardinality aggregation" through the official client and raw HTTP, on real Postgres. */
describe('cardinality aggregation', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'cardinality';
  const N = 2_000;
  beforeAll(async () => {
    await es().indices.create({
      index,
      mappings: { properties: { kw: { type: 'keyword' }, n: { type: 'long' } } },
    });
    const operations = Array.from({ length: N }, (_v, i) => [
      { index: {} },
      { kw: `user-${i % 1_500}`, n: i },
    ]).flat();
    await es().bulk({ index, refresh: true, operations });
  });

  it('is exact below precision_threshold and close above it (official client)', async () => {
    const response = await es().search({
      index,
      size: 0,
      aggs: {
        users: { cardinality: { field: 'kw' } },
        numbers: { cardinality: { field: 'n' } },
        rough: { cardinality: { field: 'n', precision_threshold: 10 } },
      },
    });
    const aggs = response.aggregations as Json;
    expect(aggs.users).toEqual({ value: 1_500 });
    expect(aggs.numbers).toEqual({ value: N });
    // precision_threshold 10 → 2^6 registers: standard error 1.04/√64 = 13%.
    expect(Math.abs(aggs.rough.value - N) / N).toBeLessThan(0.4);
    expect(aggs.rough.value).not.toBe(N);
  });

  it('refuses a negative precision_threshold with 400 (raw HTTP)', async () => {
    const response = await call(server.url, 'POST', `/${index}/_search`, {
      aggs: { c: { cardinality: { field: 'kw', precision_threshold: -5 } } },
    });
    expect(response.status).toBe(400);
    expect((response.json as Json).error.type).toBe('illegal_argument_exception');
  });
});
