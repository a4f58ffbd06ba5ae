import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

interface StatsSection {
  docs?: { count: number; deleted: number; total_size_in_bytes: number };
  store?: { size_in_bytes: number; total_data_set_size_in_bytes: number; reserved_in_bytes: number };
  shard_stats?: { total_count: number };
}
interface StatsBody {
  _shards: { total: number; successful: number; failed: number };
  _all: { primaries: StatsSection; total: StatsSection };
  indices?: Record<
    string,
    { uuid: string; health: string; status: string; primaries: StatsSection; total: StatsSection }
  >;
}

// ES "Index stats API": docs and store per index and summed in _all, as _cat/indices counts them.
describe('GET /_stats', () => {
  const server = useSearchStore();
  beforeAll(async () => {
    const es = client8(server.url);
    await es.indices.create({ index: 'stats-a', settings: { number_of_replicas: 0 } });
    await es.indices.create({ index: 'stats-b' });
    await es.bulk({
      operations: [
        { index: { _index: 'stats-a', _id: '1' } },
        { t: 'one' },
        { index: { _index: 'stats-a', _id: '2' } },
        { t: 'two' },
        { index: { _index: 'stats-b', _id: '1' } },
        { t: 'three' },
      ],
    });
    await es.delete({ index: 'stats-a', id: '2' });
    await es.indices.putAlias({ index: 'stats-b', name: 'b-alias' });
  });

  async function catSize(index: string): Promise<number> {
    const response = await call(server.url, 'GET', `/_cat/indices/${index}?h=store.size&bytes=b`);
    return Number(response.text.trim());
  }

  it('sums live documents and store bytes in _all, and shows each index', async () => {
    const response = await call(server.url, 'GET', '/_stats');
    expect(response.status).toBe(200);
    const body = response.json as StatsBody;
    const sizeA = await catSize('stats-a');
    const sizeB = await catSize('stats-b');
    expect(sizeA).toBeGreaterThan(0);
    expect(body._shards).toEqual({ total: 3, successful: 2, failed: 0 });
    expect(body._all.primaries).toEqual({
      docs: { count: 2, deleted: 0, total_size_in_bytes: sizeA + sizeB },
      shard_stats: { total_count: 2 },
      store: {
        size_in_bytes: sizeA + sizeB,
        total_data_set_size_in_bytes: sizeA + sizeB,
        reserved_in_bytes: 0,
      },
    });
    expect(body._all.total).toEqual(body._all.primaries);
    expect(Object.keys(body.indices ?? {})).toEqual(['stats-a', 'stats-b']);
    expect(body.indices?.['stats-a']).toMatchObject({
      health: 'green',
      status: 'open',
      primaries: { docs: { count: 1, deleted: 0 }, store: { size_in_bytes: sizeA } },
    });
    expect(body.indices?.['stats-a']?.uuid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(body.indices?.['stats-b']).toMatchObject({ health: 'yellow', total: { docs: { count: 1 } } });
  });

  it('narrows to an expression (alias, wildcard) and to the metrics asked', async () => {
    const alias = (await call(server.url, 'GET', '/b-alias/_stats')).json as StatsBody;
    expect(Object.keys(alias.indices ?? {})).toEqual(['stats-b']);
    expect(alias._all.primaries.docs?.count).toBe(1);
    const docsOnly = (await call(server.url, 'GET', '/stats-*/_stats/docs')).json as StatsBody;
    expect(docsOnly._all.primaries).toEqual({ docs: expect.objectContaining({ count: 2 }) });
    const store = (await call(server.url, 'GET', '/_stats/store,docs?level=cluster')).json as StatsBody;
    expect(Object.keys(store._all.total)).toEqual(['docs', 'store']);
    expect(store).not.toHaveProperty('indices');
  });

  it('answers 404 for a missing index and 400 for an unknown metric or level', async () => {
    const missing = await call(server.url, 'GET', '/missing/_stats');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { type: 'index_not_found_exception' } });
    const metric = await call(server.url, 'GET', '/_stats/dogs');
    expect(metric.status).toBe(400);
    expect(metric.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'request [/_stats/dogs] contains unrecognized metric: [dogs] -> did you mean [docs]?',
      },
    });
    const level = await call(server.url, 'GET', '/_stats?level=node');
    expect(level.status).toBe(400);
    expect(level.json).toMatchObject({
      error: { reason: 'level parameter must be one of [cluster] or [indices] or [shards] but was [node]' },
    });
  });

  it('works through the official client', async () => {
    const es = client8(server.url);
    const stats = await es.indices.stats({ index: 'stats-a', metric: 'docs' });
    expect(stats._all.primaries?.docs?.count).toBe(1);
    expect(stats.indices?.['stats-a']?.primaries?.docs?.count).toBe(1);
    const missing = await failure(es.indices.stats({ index: 'nope' }));
    expect(missing.status).toBe(404);
  });
});
