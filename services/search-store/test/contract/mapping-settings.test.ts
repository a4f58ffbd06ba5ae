import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

describe('mapping and settings APIs', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);

  it('shows an empty mapping as {} and merges PUT _mapping without removing fields', async () => {
    await es().indices.create({ index: 'm1' });
    expect((await call(server.url, 'GET', '/m1/_mapping')).json).toEqual({ m1: { mappings: {} } });
    await es().indices.putMapping({ index: 'm1', properties: { a: { type: 'long' } } });
    await es().indices.putMapping({ index: 'm1', dynamic: 'strict', properties: { b: { type: 'keyword' } } });
    expect(await es().indices.getMapping({ index: 'm1' })).toEqual({
      m1: { mappings: { dynamic: 'strict', properties: { a: { type: 'long' }, b: { type: 'keyword' } } } },
    });
    const all = (await call(server.url, 'GET', '/_mapping')).json as Record<string, unknown>;
    expect(Object.keys(all)).toContain('m1');
  });

  it('refuses a type change, a _doc wrapper and an unknown type with ES errors', async () => {
    const change = await failure(
      es().indices.putMapping({ index: 'm1', properties: { a: { type: 'keyword' } } }),
    );
    expect(change.status).toBe(400);
    expect(change.body).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'mapper [a] cannot be changed from type [long] to [keyword]',
      },
    });
    const typed = await call(server.url, 'PUT', '/m1/_mapping', {
      _doc: { properties: { c: { type: 'long' } } },
    });
    expect(typed.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'Types cannot be provided in put mapping requests',
      },
    });
    const unknown = await call(server.url, 'PUT', '/m1/_mapping', { properties: { c: { type: 'nope' } } });
    expect(unknown.json).toMatchObject({
      error: { type: 'mapper_parsing_exception', reason: 'No handler for type [nope] declared on field [c]' },
    });
    expect((await call(server.url, 'PUT', '/missing/_mapping', { properties: {} })).status).toBe(404);
  });

  it('refuses a new field under strict with strict_dynamic_mapping_exception and [line:col]', async () => {
    const response = await call(server.url, 'PUT', '/m1/_doc/1', '{"a": 1, "zzz": "x"}');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: {
        root_cause: [
          {
            type: 'strict_dynamic_mapping_exception',
            reason:
              '[1:17] mapping set to strict, dynamic introduction of [zzz] within [_doc] is not allowed',
          },
        ],
        type: 'strict_dynamic_mapping_exception',
        reason: '[1:17] mapping set to strict, dynamic introduction of [zzz] within [_doc] is not allowed',
      },
      status: 400,
    });
  });

  it('locates strict violations of a partial update in the merged source', async () => {
    await es().index({ index: 'm1', id: 'u', document: { a: 1 } });
    const response = await call(server.url, 'POST', '/m1/_update/u', { doc: { q: 1 } });
    expect(response.json).toMatchObject({
      error: {
        type: 'strict_dynamic_mapping_exception',
        reason: '[1:12] mapping set to strict, dynamic introduction of [q] within [_doc] is not allowed',
      },
    });
  });

  it('stores but does not map new fields under dynamic false, and maps runtime fields under runtime', async () => {
    await es().indices.create({ index: 'm2', mappings: { dynamic: false } });
    await es().index({ index: 'm2', id: '1', document: { free: 'x' } });
    expect(await es().getSource({ index: 'm2', id: '1' })).toEqual({ free: 'x' });
    expect(await es().indices.getMapping({ index: 'm2' })).toEqual({
      m2: { mappings: { dynamic: 'false' } },
    });
    await es().indices.create({ index: 'm3', mappings: { dynamic: 'runtime' } });
    await es().index({ index: 'm3', id: '1', document: { s: 'x', n: 1.5 } });
    expect(await es().indices.getMapping({ index: 'm3' })).toEqual({
      m3: { mappings: { dynamic: 'runtime', runtime: { n: { type: 'double' }, s: { type: 'keyword' } } } },
    });
  });

  it('maps dates by date detection and sets vector dims', async () => {
    await es().index({
      index: 'm4',
      id: '1',
      document: { at: '2024-05-06T07:08:09Z', slash: '2024/05/06 07:08:09' },
    });
    expect(await es().indices.getMapping({ index: 'm4' })).toEqual({
      m4: {
        mappings: {
          properties: {
            at: { type: 'date' },
            slash: { type: 'date', format: 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd Z' },
          },
        },
      },
    });
    await es().indices.create({ index: 'm5', mappings: { properties: { v: { type: 'dense_vector' } } } });
    await es().index({ index: 'm5', id: '1', document: { v: [1, 2, 3] } });
    const mapping = await es().indices.getMapping({ index: 'm5' });
    expect(mapping.m5?.mappings.properties?.v).toEqual({ type: 'dense_vector', dims: 3 });
    const wrong = await call(server.url, 'PUT', '/m5/_doc/2', { v: [1, 2] });
    expect(wrong.status).toBe(400);
  });

  it('updates dynamic settings with or without the settings wrapper and shows them nested or flat', async () => {
    await es().indices.create({ index: 's1' });
    expect(
      (await call(server.url, 'PUT', '/s1/_settings', { settings: { number_of_replicas: 0 } })).json,
    ).toEqual({ acknowledged: true });
    expect((await call(server.url, 'PUT', '/s1/_settings', { 'index.refresh_interval': '10s' })).status).toBe(
      200,
    );
    const nested = (await call(server.url, 'GET', '/s1/_settings')).json as {
      s1: { settings: { index: Record<string, unknown> } };
    };
    expect(nested.s1.settings.index).toMatchObject({ number_of_replicas: '0', refresh_interval: '10s' });
    const flat = (await call(server.url, 'GET', '/s1/_settings?flat_settings=true')).json as {
      s1: { settings: Record<string, unknown> };
    };
    expect(flat.s1.settings).toMatchObject({
      'index.number_of_replicas': '0',
      'index.refresh_interval': '10s',
    });
  });

  it('refuses unknown and non-dynamic settings and 404s a missing index', async () => {
    const unknown = await call(server.url, 'PUT', '/s1/_settings', { 'index.nope': 1 });
    expect(unknown.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: expect.stringContaining('unknown setting [index.nope]') as string,
      },
    });
    const fixed = await call(server.url, 'PUT', '/s1/_settings', { number_of_shards: 2 });
    expect(fixed.status).toBe(400);
    expect((fixed.json as { error: { reason: string } }).error.reason).toMatch(
      /^Can't update non dynamic settings \[\[index.number_of_shards\]\] for open indices \[\[s1\//,
    );
    const bad = await call(server.url, 'PUT', '/s1/_settings', { 'index.blocks.write': 'maybe' });
    expect(bad.json).toMatchObject({
      error: { reason: 'Failed to parse value [maybe] as only [true] or [false] are allowed.' },
    });
    expect((await call(server.url, 'PUT', '/missing/_settings', { 'index.blocks.write': true })).status).toBe(
      404,
    );
  });
});
