import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

describe('clone and reindex', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().indices.create({
      index: 'src',
      mappings: { properties: { tag: { type: 'keyword' } } },
      settings: { number_of_replicas: 0 },
    });
    await es().bulk({
      operations: [
        { index: { _index: 'src', _id: '1' } },
        { tag: 'a', n: 1 },
        { index: { _index: 'src', _id: '2' } },
        { tag: 'b', n: 2 },
        { index: { _index: 'src', _id: '3' } },
        { tag: 'c', n: 3 },
      ],
    });
  });

  it('refuses to clone a source without a write block with 500 illegal_state_exception', async () => {
    const { status, body } = await failure(es().indices.clone({ index: 'src', target: 'copy' }));
    expect(status).toBe(500);
    expect(body).toMatchObject({
      error: {
        type: 'illegal_state_exception',
        reason: 'index src must be read-only to resize index. use "index.blocks.write=true"',
      },
    });
    expect((await failure(es().indices.clone({ index: 'missing', target: 'copy' }))).status).toBe(404);
  });

  it('clones mappings, settings (write block included) and documents, with the inverted index copied in SQL', async () => {
    await es().indices.putSettings({ index: 'src', settings: { 'index.blocks.write': true } });
    const calls = server.indexWriterCalls.length;
    expect(await es().indices.clone({ index: 'src', target: 'copy' })).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
      index: 'copy',
    });
    expect(await es().indices.getMapping({ index: 'copy' })).toEqual({
      copy: { mappings: (await es().indices.getMapping({ index: 'src' })).src?.mappings },
    });
    const settings = (await call(server.url, 'GET', '/copy/_settings?flat_settings=true')).json as {
      copy: { settings: Record<string, string> };
    };
    expect(settings.copy.settings).toMatchObject({
      'index.blocks.write': 'true',
      'index.number_of_replicas': '0',
      'index.provided_name': 'copy',
    });
    const { rows } = await server.pool.query(
      `SELECT c.id, c.source::text = s.source::text AS same, c.doc_key = s.doc_key AS same_key, c.seq_no = s.seq_no AS same_seq
       FROM documents c JOIN indices ci ON ci.index_id = c.index_id AND ci.name = 'copy'
       JOIN indices si ON si.name = 'src' JOIN documents s ON s.index_id = si.index_id AND s.id = c.id ORDER BY c.id`,
    );
    expect(rows).toEqual(['1', '2', '3'].map((id) => ({ id, same: true, same_key: true, same_seq: true })));
    expect(server.indexWriterCalls.slice(calls)).toEqual([
      expect.objectContaining({ method: 'copyIndex', inTransaction: true }),
    ]);
    const blocked = await call(server.url, 'PUT', '/copy/_doc/9', { tag: 'z' });
    expect(blocked.status).toBe(403);
  });

  it('refuses a clone onto an existing index and a clone with mappings', async () => {
    expect((await failure(es().indices.clone({ index: 'src', target: 'copy' }))).body).toMatchObject({
      error: { type: 'resource_already_exists_exception' },
    });
    const mappings = await call(server.url, 'POST', '/src/_clone/copy2', { mappings: { properties: {} } });
    expect(mappings.status).toBe(400);
    expect(mappings.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
  });

  it('reindexes into an auto-created index with dynamic mapping (not the source mapping)', async () => {
    const result = await es().reindex({ source: { index: 'src' }, dest: { index: 'dest' }, refresh: true });
    expect(result).toMatchObject({
      timed_out: false,
      total: 3,
      updated: 0,
      created: 3,
      deleted: 0,
      batches: 1,
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures: [],
    });
    expect(await es().indices.getMapping({ index: 'dest' })).toEqual({
      dest: {
        mappings: {
          properties: {
            n: { type: 'long' },
            tag: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
          },
        },
      },
    });
    expect(await es().getSource({ index: 'dest', id: '2' })).toEqual({ tag: 'b', n: 2 });
    const again = await es().reindex({ source: { index: 'src' }, dest: { index: 'dest' } });
    expect(again).toMatchObject({ total: 3, updated: 3, created: 0 });
    expect(await es().get({ index: 'dest', id: '1' })).toMatchObject({ _version: 2 });
  });

  it('reindexes only the ids asked for', async () => {
    const result = await es().reindex({
      source: { index: 'src', query: { ids: { values: ['1', '3'] } } },
      dest: { index: 'some' },
    });
    expect(result).toMatchObject({ total: 2, created: 2 });
    expect(await es().exists({ index: 'some', id: '2' })).toBe(false);
  });

  it('answers op_type create conflicts with 409 and the full body, or counts them with conflicts=proceed', async () => {
    await es().index({ index: 'partial', id: '1', document: { tag: 'kept' } });
    const { rows } = await server.pool.query<{ uuid: string }>(
      "SELECT uuid FROM indices WHERE name = 'partial'",
    );
    const response = await call(server.url, 'POST', '/_reindex', {
      source: { index: 'src' },
      dest: { index: 'partial', op_type: 'create' },
    });
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({
      total: 3,
      created: 2,
      version_conflicts: 1,
      failures: [
        {
          index: 'partial',
          id: '1',
          cause: {
            type: 'version_conflict_engine_exception',
            reason: '[1]: version conflict, document already exists (current version [1])',
            index_uuid: rows[0]?.uuid,
            shard: '0',
            index: 'partial',
          },
          status: 409,
        },
      ],
    });
    expect(await es().getSource({ index: 'partial', id: '1' })).toEqual({ tag: 'kept' });
    const proceed = await call(server.url, 'POST', '/_reindex', {
      conflicts: 'proceed',
      source: { index: 'src' },
      dest: { index: 'partial', op_type: 'create' },
    });
    expect(proceed.status).toBe(200);
    expect(proceed.json).toMatchObject({ total: 3, created: 0, version_conflicts: 3, failures: [] });
  });

  it('reports documents the destination mapping refuses as failures and copies the rest', async () => {
    await client8(server.url).indices.create({
      index: 'typed-dest',
      mappings: { dynamic: 'strict', properties: { tag: { type: 'keyword' }, n: { type: 'byte' } } },
    });
    await client8(server.url).index({ index: 'mixed-src', id: 'ok', document: { tag: 'a', n: 1 } });
    await client8(server.url).index({ index: 'mixed-src', id: 'big', document: { tag: 'b', n: 1000 } });
    await client8(server.url).index({ index: 'typed-dest', id: 'big', document: { tag: 'old', n: 2 } });
    const response = await call(server.url, 'POST', '/_reindex', {
      source: { index: 'mixed-src' },
      dest: { index: 'typed-dest' },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      total: 2,
      created: 1,
      failures: [
        {
          index: 'typed-dest',
          id: 'big',
          status: 400,
          cause: {
            type: 'document_parsing_exception',
            caused_by: { reason: 'Value [1000] is out of range for a byte' },
          },
        },
      ],
    });
    expect(await client8(server.url).getSource({ index: 'typed-dest', id: 'ok' })).toEqual({
      tag: 'a',
      n: 1,
    });
    expect(await client8(server.url).getSource({ index: 'typed-dest', id: 'big' })).toEqual({
      tag: 'old',
      n: 2,
    });
  });

  it('404s a missing source index', async () => {
    const response = await call(server.url, 'POST', '/_reindex', {
      source: { index: 'nope' },
      dest: { index: 'x' },
    });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({
      error: { type: 'index_not_found_exception', reason: 'no such index [nope]' },
    });
    expect((await call(server.url, 'HEAD', '/x')).status).toBe(404);
  });
});
