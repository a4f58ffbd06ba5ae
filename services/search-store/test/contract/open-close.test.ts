import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

/** ES IndexClosedException as the REST layer renders it. */
const closedError = (index: string, uuid: string) => ({
  type: 'index_closed_exception',
  reason: 'closed',
  index_uuid: uuid,
  index,
});
const closedBody = (index: string, uuid: string) => ({
  error: { root_cause: [closedError(index, uuid)], ...closedError(index, uuid) },
  status: 400,
});

/** ES "Close index API" and "Open index API" (yaml: indices.open/10_basic, 20_multiple_indices). */
describe('close and open indices', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const uuidOf = async (index: string) =>
    String((await es().indices.getSettings({ index, flat_settings: true }))[index]?.settings?.['index.uuid']);
  afterEach(async () => {
    await es().cluster.putSettings({ persistent: { 'action.destructive_requires_name': null } });
    const all = await call(server.url, 'GET', '/_cat/indices?format=json&h=index');
    for (const { index } of all.json as { index: string }[]) await es().indices.delete({ index });
  });

  it('closes an index: reads and writes answer index_closed_exception until it is opened', async () => {
    await es().index({ index: 'shut', id: '1', document: { a: 'x' }, refresh: true });
    await es().index({ index: 'other', id: '9', document: { a: 'x' }, refresh: true });
    await es().indices.putAlias({ index: 'shut', name: 'shut-alias' });
    const uuid = await uuidOf('shut');
    expect(await es().indices.close({ index: 'shut' })).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
      indices: { shut: { closed: true } },
    });
    const { rows } = await server.pool.query<{ closed: boolean }>(
      "SELECT closed FROM indices WHERE name = 'shut'",
    );
    expect(rows).toEqual([{ closed: true }]);

    const refused = closedBody('shut', uuid);
    expect(await failure(es().search({ index: 'shut' }))).toEqual({ status: 400, body: refused });
    expect(await failure(es().search({ index: 'shut-alias' }))).toEqual({ status: 400, body: refused });
    // A relevance query takes the fast path (search/fast-match/): it refuses the same way.
    expect(await failure(es().search({ index: 'shut', query: { match: { a: 'x' } } }))).toEqual({
      status: 400,
      body: refused,
    });
    expect(await failure(es().count({ index: 'shut' }))).toEqual({ status: 400, body: refused });
    expect(await failure(es().get({ index: 'shut', id: '1' }))).toEqual({ status: 400, body: refused });
    expect(await failure(es().index({ index: 'shut', id: '2', document: {} }))).toEqual({
      status: 400,
      body: refused,
    });
    expect(await failure(es().update({ index: 'shut', id: '1', doc: { a: 'y' } }))).toEqual({
      status: 400,
      body: refused,
    });
    expect(await failure(es().delete({ index: 'shut', id: '1' }))).toEqual({ status: 400, body: refused });
    expect(await failure(es().indices.stats({ index: 'shut' }))).toEqual({ status: 400, body: refused });
    expect(await failure(es().indices.refresh({ index: 'shut' }))).toEqual({ status: 400, body: refused });
    const mget = await es().mget({ docs: [{ _index: 'shut', _id: '1' }] });
    expect(mget.docs).toMatchObject([{ _index: 'shut', _id: '1', error: closedError('shut', uuid) }]);
    const bulk = await es().bulk({ operations: [{ index: { _index: 'shut', _id: '3' } }, { a: 'z' }] });
    expect(bulk.errors).toBe(true);
    expect(bulk.items[0]?.index).toMatchObject({
      _index: 'shut',
      _id: '3',
      status: 400,
      error: closedError('shut', uuid),
    });
    const msearch = await es().msearch({ searches: [{ index: 'shut' }, {}, { index: 'other' }, {}] });
    expect(msearch.responses[0]).toEqual({ ...closedBody('shut', uuid) });
    expect(msearch.responses[1]).toMatchObject({ hits: { total: { value: 1 } } });

    // Wildcards and _all skip it; ignore_unavailable skips it by name.
    expect((await es().search({ index: '*' })).hits.hits.map((h) => h._id)).toEqual(['9']);
    expect(
      (await es().search({ index: 'shut,other', ignore_unavailable: true })).hits.hits.map((h) => h._id),
    ).toEqual(['9']);

    // Metadata still answers: GET index (with verified_before_close), settings, aliases, cat, health.
    const got = await es().indices.get({ index: 'shut', flat_settings: true });
    expect(got.shut?.settings?.['index.verified_before_close']).toBe('true');
    expect(got.shut?.aliases).toEqual({ 'shut-alias': {} });
    expect(Object.keys(await es().indices.get({ index: '*' }))).toEqual(['other']);
    expect(Object.keys(await es().indices.get({ index: '*', expand_wildcards: 'all' }))).toEqual([
      'other',
      'shut',
    ]);
    const cat = await call(server.url, 'GET', '/_cat/indices?format=json&h=index,status,docs.count&s=index');
    expect(cat.json).toEqual([
      { index: 'other', status: 'open', 'docs.count': '1' },
      { index: 'shut', status: 'close', 'docs.count': null },
    ]);
    const health = await es().cluster.health({ index: 'shut' });
    expect(health).toMatchObject({ status: 'yellow', active_primary_shards: 1 });

    // Open: everything is back as it was, the verification setting gone.
    expect(await es().indices.open({ index: 'shut' })).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
    });
    expect((await es().get({ index: 'shut', id: '1' }))._source).toEqual({ a: 'x' });
    expect((await es().search({ index: 'shut' })).hits.hits.map((h) => h._id)).toEqual(['1']);
    const settings = await es().indices.getSettings({ index: 'shut', flat_settings: true });
    expect(settings.shut?.settings?.['index.verified_before_close']).toBeUndefined();
    await es().index({ index: 'shut', id: '2', document: { a: 'y' }, refresh: true });
    expect((await es().count({ index: 'shut' })).count).toBe(2);
  });

  it('closes by wildcard only when action.destructive_requires_name is false, listing what it closed', async () => {
    for (const index of ['index_1', 'index_2', 'index_3']) await es().indices.create({ index });
    const refused = await call(server.url, 'POST', '/index_*/_close');
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'Wildcard expressions or all indices are not allowed',
      },
    });
    expect((await call(server.url, 'POST', '/_all/_close')).status).toBe(400);
    await es().cluster.putSettings({ persistent: { 'action.destructive_requires_name': false } });
    await es().indices.close({ index: 'index_2' });
    // index_2 is already closed: the wildcard (open indices only) leaves it out.
    expect(await es().indices.close({ index: 'index_*' })).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
      indices: { index_1: { closed: true }, index_3: { closed: true } },
    });
    // Nothing left to close: acknowledged, no shards, no indices (CloseIndexResponse.EMPTY).
    expect(await es().indices.close({ index: 'index_*' })).toEqual({
      acknowledged: true,
      shards_acknowledged: false,
      indices: {},
    });
    // Open's wildcards expand to closed indices by default; expand_wildcards=open reaches none of them.
    expect((await call(server.url, 'POST', '/index_*/_open?expand_wildcards=open')).json).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
    });
    expect((await call(server.url, 'GET', '/_cat/indices/index_1?h=status')).text).toBe('close\n');
    await es().indices.open({ index: 'index_*' });
    const cat = await call(server.url, 'GET', '/_cat/indices?h=status');
    expect(cat.text).toBe('open\nopen\nopen\n');
  });

  it('answers ES errors for missing indices and bad parameters', async () => {
    await es().indices.create({ index: 'present', settings: { number_of_replicas: 0 } });
    const missing = await call(server.url, 'POST', '/absent/_close');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: { type: 'index_not_found_exception', reason: 'no such index [absent]' },
    });
    expect((await call(server.url, 'POST', '/absent/_open')).status).toBe(404);
    expect((await call(server.url, 'POST', '/absent/_close?ignore_unavailable=true')).json).toEqual({
      acknowledged: true,
      shards_acknowledged: false,
      indices: {},
    });
    const bad = await call(server.url, 'POST', '/present/_close?expand_wildcards=shut');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'No valid expand wildcard value [shut]' },
    });
    const shards = await call(server.url, 'POST', '/present/_close?wait_for_active_shards=many');
    expect(shards.json).toMatchObject({ error: { reason: 'cannot parse ActiveShardCount[many]' } });
    expect((await call(server.url, 'POST', '/present/_close?wait_for_active_shards=-1')).status).toBe(400);
    expect((await call(server.url, 'POST', '/present/_close?flat=true')).status).toBe(400);
    // Nothing above closed it.
    expect((await call(server.url, 'GET', '/_cat/indices/present?h=status')).text).toBe('open\n');
    // wait_for_active_shards=all: no replicas, so every copy is active.
    expect((await call(server.url, 'POST', '/present/_close?wait_for_active_shards=all')).json).toMatchObject(
      {
        shards_acknowledged: true,
      },
    );
    // Opening an open index, or a closed one twice, is a no-op that acknowledges.
    expect((await call(server.url, 'POST', '/present/_open')).json).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
    });
    expect((await call(server.url, 'POST', '/present/_open')).json).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
    });
  });

  it('refuses to close or open an index under a metadata block', async () => {
    await es().indices.create({ index: 'frozen', settings: { 'index.blocks.metadata': true } });
    const res = await call(server.url, 'POST', '/frozen/_close');
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: { type: 'cluster_block_exception' } });
    await es().indices.putSettings({ index: 'frozen', settings: { 'index.blocks.metadata': false } });
  });
});
