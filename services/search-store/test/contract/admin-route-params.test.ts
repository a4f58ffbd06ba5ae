import { useSearchStore } from '../support/use-search-store';
import { esErrorBody } from '../support/es-error-body';
import { call, client8, failure } from '../support/http';

const envelope = (reason: string) => esErrorBody('illegal_argument_exception', reason);

/** ES `BaseRestHandler`: every route refuses URL parameters its REST spec does not list. */
describe('unknown URL parameters on bulk, aliases, mapping, settings, cat, clone, reindex, cluster settings', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().index({ index: 'p1', id: '1', document: { a: 1 }, refresh: true });
  });

  it('refuses a bulk with a misspelt refresh before writing any item', async () => {
    const response = await call(
      server.url,
      'POST',
      '/_bulk?refrsh=true',
      '{"index":{"_index":"p1","_id":"b1"}}\n{"a":2}\n',
      { 'content-type': 'application/x-ndjson' },
    );
    expect(response.status).toBe(400);
    expect(response.json).toEqual(
      envelope('request [/_bulk] contains unrecognized parameter: [refrsh] -> did you mean [refresh]?'),
    );
    expect(await es().exists({ index: 'p1', id: 'b1' })).toBe(false);
  });

  it('accepts every bulk parameter the official client sends', async () => {
    const result = await es().bulk({
      refresh: 'wait_for',
      pipeline: '_none',
      require_alias: false,
      timeout: '1m',
      wait_for_active_shards: 1,
      routing: 'r',
      _source: false,
      operations: [{ index: { _index: 'p1', _id: 'b2' } }, { a: 3 }],
    });
    expect(result.errors).toBe(false);
    expect(await es().exists({ index: 'p1', id: 'b2' })).toBe(true);
  });

  it('refuses unknown parameters on alias changes and leaves the aliases unchanged', async () => {
    const update = await call(server.url, 'POST', '/_aliases?foo=1', {
      actions: [{ add: { index: 'p1', alias: 'x1' } }],
    });
    expect(update.json).toEqual(envelope('request [/_aliases] contains unrecognized parameter: [foo]'));
    const put = await call(server.url, 'PUT', '/p1/_alias/x2?master_timout=1s');
    expect(put.json).toEqual(
      envelope(
        'request [/p1/_alias/x2] contains unrecognized parameter: [master_timout] -> did you mean [master_timeout]?',
      ),
    );
    expect(await es().indices.getAlias({ index: 'p1' })).toEqual({ p1: { aliases: {} } });
    const get = await call(server.url, 'GET', '/_aliases?bogus');
    expect(get.json).toEqual(envelope('request [/_aliases] contains unrecognized parameter: [bogus]'));
    await es().indices.updateAliases({
      actions: [{ add: { index: 'p1', alias: 'x3' } }],
      timeout: '30s',
      master_timeout: '30s',
    });
    expect(await es().indices.getAlias({ name: 'x3', expand_wildcards: 'open', local: false })).toEqual({
      p1: { aliases: { x3: {} } },
    });
  });

  it('refuses unknown parameters on mapping and settings reads and changes, changing nothing', async () => {
    const putMapping = await call(server.url, 'PUT', '/p1/_mapping?dynamik=strict', {
      properties: { z: { type: 'keyword' } },
    });
    expect(putMapping.json).toEqual(
      envelope('request [/p1/_mapping] contains unrecognized parameter: [dynamik]'),
    );
    const putSettings = await call(server.url, 'PUT', '/p1/_settings?flat_setting=true', {
      'index.number_of_replicas': 0,
    });
    expect(putSettings.json).toEqual(
      envelope(
        'request [/p1/_settings] contains unrecognized parameter: [flat_setting] -> did you mean [flat_settings]?',
      ),
    );
    const mapping = await es().indices.getMapping({ index: 'p1', ignore_unavailable: true });
    expect(mapping.p1?.mappings.properties).not.toHaveProperty('z');
    const settings = await es().indices.getSettings({ index: 'p1', flat_settings: true, local: true });
    expect(settings.p1?.settings?.['index.number_of_replicas']).toBe('1');
    const getMapping = await call(server.url, 'GET', '/_mapping?x=1');
    expect(getMapping.json).toEqual(envelope('request [/_mapping] contains unrecognized parameter: [x]'));
    await es().indices.putSettings({
      index: 'p1',
      settings: { number_of_replicas: 1 },
      timeout: '30s',
      preserve_existing: false,
    });
  });

  it('refuses unknown cat parameters and accepts the documented ones', async () => {
    const cat = await call(server.url, 'GET', '/_cat/indices?bites=b');
    expect(cat.json).toEqual(
      envelope('request [/_cat/indices] contains unrecognized parameter: [bites] -> did you mean [bytes]?'),
    );
    const nodes = await call(server.url, 'GET', '/_cat/nodes?healt=green');
    expect(nodes.status).toBe(400);
    const ok = await call(
      server.url,
      'GET',
      '/_cat/indices/p1?v&h=index,docs.count&s=index&bytes=b&pri&health=yellow&expand_wildcards=all&help=false&format=json',
    );
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual([{ index: 'p1', 'docs.count': '2' }]);
    const text = await es().cat.nodes({ v: true, h: 'name', full_id: true, bytes: 'b' });
    expect(typeof text).toBe('string');
  });

  it('refuses unknown parameters on clone, reindex and cluster settings and creates nothing', async () => {
    await es().indices.putSettings({ index: 'p1', settings: { 'index.blocks.write': true } });
    const clone = await call(server.url, 'POST', '/p1/_clone/p2?wait=1');
    expect(clone.json).toEqual(envelope('request [/p1/_clone/p2] contains unrecognized parameter: [wait]'));
    expect(await es().indices.exists({ index: 'p2' })).toBe(false);
    await es().indices.putSettings({ index: 'p1', settings: { 'index.blocks.write': false } });
    const reindex = await failure(
      es().reindex({ source: { index: 'p1' }, dest: { index: 'p3' } }, { querystring: { slice: 2 } }),
    );
    expect(reindex).toEqual({
      status: 400,
      body: envelope(
        'request [/_reindex] contains unrecognized parameter: [slice] -> did you mean [slices]?',
      ),
    });
    expect(await es().indices.exists({ index: 'p3' })).toBe(false);
    const cluster = await call(server.url, 'PUT', '/_cluster/settings?flat=true', {
      persistent: { 'action.destructive_requires_name': false },
    });
    expect(cluster.json).toEqual(
      envelope('request [/_cluster/settings] contains unrecognized parameter: [flat]'),
    );
    expect(await es().cluster.getSettings({ flat_settings: true, include_defaults: false })).toEqual({
      persistent: {},
      transient: {},
    });
    const copied = await es().reindex({
      source: { index: 'p1' },
      dest: { index: 'p4' },
      refresh: true,
      wait_for_completion: true,
      timeout: '1m',
      requests_per_second: -1,
    });
    expect(copied.created).toBe(2);
  });

  it('refuses unknown parameters on GET / and _analyze, and _analyze takes the index as a parameter', async () => {
    const root = await call(server.url, 'GET', '/?prety');
    expect(root.json).toEqual(
      envelope('request [/] contains unrecognized parameter: [prety] -> did you mean [pretty]?'),
    );
    expect((await call(server.url, 'GET', '/?pretty')).status).toBe(200);
    const byQuery = await call(server.url, 'GET', '/_analyze?text=Quick%20Fox');
    expect(byQuery.json).toEqual(envelope('request [/_analyze] contains unrecognized parameter: [text]'));
    await es().indices.create({
      index: 'p5',
      settings: { analysis: { analyzer: { ws: { type: 'custom', tokenizer: 'whitespace' } } } },
    });
    const inIndex = await call(server.url, 'POST', '/_analyze?index=p5', {
      analyzer: 'ws',
      text: 'Quick Fox',
    });
    expect(inIndex.status).toBe(200);
    expect((inIndex.json as { tokens: { token: string }[] }).tokens.map((t) => t.token)).toEqual([
      'Quick',
      'Fox',
    ]);
    const missing = await call(server.url, 'POST', '/_analyze?index=nope', { text: 'a' });
    expect(missing.status).toBe(404);
  });
});
