import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** ES "Percentiles aggregation" through the official client and raw HTTP, on real Postgres. */
describe('percentiles aggregation', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'percentiles';
  beforeAll(async () => {
    await es().indices.create({
      index,
      mappings: { properties: { i: { type: 'integer' }, s: { type: 'keyword' } } },
    });
    const operations = [1, 51, 101, 151].flatMap((i) => [{ index: {} }, { i, s: 'foo' }]);
    await es().bulk({ index, refresh: true, operations });
  });

  it('answers the default percents, on all and on filtered documents (official client)', async () => {
    const all = await es().search({
      index,
      size: 0,
      aggs: { p: { percentiles: { field: 'i', tdigest: { compression: 200 } } } },
    });
    expect((all.aggregations as Json).p).toEqual({
      values: { '1.0': 1, '5.0': 1, '25.0': 26, '50.0': 76, '75.0': 126, '95.0': 151, '99.0': 151 },
    });
    const filtered = await es().search({
      index,
      size: 0,
      query: { range: { i: { gte: 50 } } },
      aggs: { p: { percentiles: { field: 'i', percents: [25, 50, 75], keyed: false } } },
    });
    expect((filtered.aggregations as Json).p).toEqual({
      values: [
        { key: 25, value: 63.5 },
        { key: 50, value: 101 },
        { key: 75, value: 138.5 },
      ],
    });
  });

  it('answers 400 for a negative compression and a keyword field (raw HTTP)', async () => {
    const bad = await call(server.url, 'POST', `/${index}/_search`, {
      aggs: { p: { percentiles: { field: 'i', tdigest: { compression: -1 } } } },
    });
    expect(bad.status).toBe(400);
    expect((bad.json as Json).error.reason).toBe(
      '[compression] must be greater than or equal to 0. Found [-1.0] in [p]',
    );
    const keyword = await call(server.url, 'POST', `/${index}/_search`, {
      aggs: { p: { percentiles: { field: 's' } } },
    });
    expect(keyword.status).toBe(400);
    expect((keyword.json as Json).error.type).toBe('illegal_argument_exception');
  });
});
