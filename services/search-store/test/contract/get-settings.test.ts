import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

/** ES "Get index settings API" (yaml: indices.get_settings/10_basic, 30_defaults). */
describe('GET [/<index>]/_settings/<name>', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().indices.create({ index: 'test_1', settings: { number_of_shards: 5, number_of_replicas: 1 } });
    await es().indices.create({ index: 'test_2', settings: { number_of_shards: 3, number_of_replicas: 0 } });
  });

  it('filters settings by name patterns, a comma list, on every index or the named ones', async () => {
    expect(await es().indices.getSettings({ name: 'index.number_of_shards' })).toEqual({
      test_1: { settings: { index: { number_of_shards: '5' } } },
      test_2: { settings: { index: { number_of_shards: '3' } } },
    });
    expect(
      await es().indices.getSettings({
        index: 'test_1',
        name: 'index.number_of_shards,index.number_of_replicas',
      }),
    ).toEqual({ test_1: { settings: { index: { number_of_shards: '5', number_of_replicas: '1' } } } });
    expect(
      await es().indices.getSettings({ index: '*2', name: 'index.number_of_s*', flat_settings: true }),
    ).toEqual({
      test_2: { settings: { 'index.number_of_shards': '3' } },
    });
    const all = await es().indices.getSettings({ index: 'test_1', name: '_all', flat_settings: true });
    expect(all.test_1?.settings?.['index.uuid']).toEqual(expect.any(String));
    // An index left with no matching setting is omitted, as GetSettingsResponse does.
    expect(await es().indices.getSettings({ name: 'index.no_such_*' })).toEqual({});
  });

  it('adds the defaults an index does not override with include_defaults', async () => {
    const plain = await es().indices.getSettings({ index: 'test_1', flat_settings: true });
    expect(plain.test_1?.settings?.['index.refresh_interval']).toBeUndefined();
    expect(plain.test_1?.defaults).toBeUndefined();
    const withDefaults = await es().indices.getSettings({
      index: 'test_1',
      flat_settings: true,
      include_defaults: true,
    });
    expect(withDefaults.test_1?.defaults?.['index.refresh_interval']).toBe('1s');
    expect(withDefaults.test_1?.defaults?.['index.max_result_window']).toBe('10000');
    // A set value is a setting, not a default.
    expect(withDefaults.test_1?.defaults?.['index.number_of_replicas']).toBeUndefined();
    const nested = await es().indices.getSettings({
      index: 'test_1',
      name: 'index.max_r*',
      include_defaults: true,
    });
    expect(nested).toEqual({
      test_1: {
        settings: {},
        defaults: {
          index: { max_regex_length: '1000', max_rescore_window: '10000', max_result_window: '10000' },
        },
      },
    });
  });

  it('reaches closed indices, where static settings may change and final ones never', async () => {
    await es().indices.create({ index: 'shut' });
    await es().indices.close({ index: 'shut' });
    const names = Object.keys(await es().indices.getSettings({ name: 'index.number_of_shards' }));
    expect(names).toEqual(['shut', 'test_1', 'test_2']);
    await es().indices.putSettings({ index: 'shut', settings: { 'index.codec': 'best_compression' } });
    const codec = await es().indices.getSettings({ index: 'shut', name: 'index.codec', flat_settings: true });
    expect(codec).toEqual({ shut: { settings: { 'index.codec': 'best_compression' } } });
    const final = await call(server.url, 'PUT', '/shut/_settings', { index: { number_of_shards: 2 } });
    expect(final.status).toBe(400);
    expect(final.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'final index setting [index.number_of_shards], not updateable',
      },
    });
    await es().indices.open({ index: 'shut' });
    const open = await call(server.url, 'PUT', '/shut/_settings', { index: { codec: 'default' } });
    expect(open.status).toBe(400);
    expect((open.json as { error: { reason: string } }).error.reason).toMatch(
      /^Can't update non dynamic settings/,
    );
    await es().indices.delete({ index: 'shut' });
  });

  it('refuses bad parameters', async () => {
    expect((await call(server.url, 'GET', '/_settings/index.*?include_defaults=maybe')).status).toBe(400);
    expect((await call(server.url, 'GET', '/_settings?expand_wildcards=some')).status).toBe(400);
    expect((await call(server.url, 'GET', '/nope/_settings/index.*')).status).toBe(404);
  });
});
