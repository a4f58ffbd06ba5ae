import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

describe('document APIs', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  let uuid: string;
  beforeAll(async () => {
    await es().indices.create({
      index: 'docs',
      mappings: {
        properties: {
          n: { type: 'integer' },
          tag: { type: 'keyword' },
          when: { type: 'date', format: 'yyyy-MM-dd' },
        },
      },
    });
    const { rows } = await server.pool.query<{ uuid: string }>(
      "SELECT uuid FROM indices WHERE name = 'docs'",
    );
    uuid = rows[0]?.uuid ?? '';
  });

  it('indexes with an auto id: 201, a 20-char base64url id, Location, and the stored row', async () => {
    const response = await call(server.url, 'POST', '/docs/_doc', { tag: 'auto', n: 1 });
    expect(response.status).toBe(201);
    const body = response.json as Record<string, unknown>;
    expect(body).toEqual({
      _index: 'docs',
      _id: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/) as string,
      _version: 1,
      result: 'created',
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: expect.any(Number) as number,
      _primary_term: 1,
    });
    expect(response.headers.get('location')).toBe(`/docs/_doc/${String(body._id)}`);
    const { rows } = await server.pool.query(
      'SELECT source::text AS source, version FROM documents WHERE id = $1',
      [body._id],
    );
    expect(rows).toEqual([{ source: '{"tag":"auto","n":1}', version: '1' }]);
  });

  it('creates then replaces by id (201 then 200, version and seq_no rising) and feeds the IndexWriter in the transaction', async () => {
    const first = await es().index({ index: 'docs', id: 'r1', document: { tag: 'a' } });
    expect(first).toMatchObject({ result: 'created', _version: 1 });
    const calls = server.indexWriterCalls.length;
    const second = await call(server.url, 'PUT', '/docs/_doc/r1?refresh=true', { tag: 'b' });
    expect(second.status).toBe(200);
    expect(second.json).toEqual({
      _index: 'docs',
      _id: 'r1',
      _version: 2,
      result: 'updated',
      forced_refresh: true,
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: first._seq_no! + 1,
      _primary_term: 1,
    });
    const writerCalls = server.indexWriterCalls.slice(calls);
    expect(writerCalls.map((c) => c.method)).toEqual(['remove', 'add']);
    expect(writerCalls.every((c) => c.inTransaction)).toBe(true);
    const { rows } = await server.pool.query<{ doc_key: string }>(
      "SELECT doc_key FROM documents WHERE id = 'r1'",
    );
    expect(writerCalls[1]?.docKeys).toEqual([rows[0]?.doc_key]);
    expect(writerCalls[0]?.docKeys).not.toEqual(writerCalls[1]?.docKeys);
  });

  it('gets a document with _source filters, and 404s a missing one with found:false', async () => {
    await es().index({ index: 'docs', id: 'g1', document: { tag: 'x', n: 5, when: '2024-01-02' } });
    const got = await call(server.url, 'GET', '/docs/_doc/g1?_source_includes=tag,n&_source_excludes=n');
    expect(got.json).toMatchObject({
      _index: 'docs',
      _id: 'g1',
      _version: 1,
      _primary_term: 1,
      found: true,
      _source: { tag: 'x' },
    });
    expect(await es().get({ index: 'docs', id: 'g1', _source: false })).not.toHaveProperty('_source');
    const missing = await call(server.url, 'GET', '/docs/_doc/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ _index: 'docs', _id: 'nope', found: false });
    expect(await es().exists({ index: 'docs', id: 'g1' })).toBe(true);
    expect(await es().exists({ index: 'docs', id: 'nope' })).toBe(false);
  });

  it('returns _source byte for byte as it was indexed (key order, integer-like keys, spacing)', async () => {
    const text = '{ "b" : 1, "2": [1, 2],\n  "a": {"z": null} }';
    await call(server.url, 'PUT', '/docs/_doc/raw', text);
    expect((await call(server.url, 'GET', '/docs/_source/raw')).text).toBe(text);
    const got = await call(server.url, 'GET', '/docs/_doc/raw');
    expect(got.text).toBe(
      `{"_index":"docs","_id":"raw","_version":1,"_seq_no":${(got.json as { _seq_no: number })._seq_no},"_primary_term":1,"found":true,"_source":${text}}`,
    );
    expect((await call(server.url, 'GET', '/docs/_source/raw?pretty')).text).toBe(
      '{\n  "2" : [\n    1,\n    2\n  ],\n  "b" : 1,\n  "a" : {\n    "z" : null\n  }\n}\n',
    );
  });

  it('serves GET _source and its 404', async () => {
    expect(await es().getSource({ index: 'docs', id: 'g1' })).toEqual({ tag: 'x', n: 5, when: '2024-01-02' });
    const missing = await call(server.url, 'GET', '/docs/_source/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: { type: 'resource_not_found_exception', reason: 'Document not found [docs]/[nope]' },
    });
  });

  it('refuses a second create with version_conflict_engine_exception and its extras', async () => {
    await es().create({ index: 'docs', id: 'c1', document: { tag: 'one' } });
    for (const path of ['/docs/_create/c1', '/docs/_doc/c1?op_type=create']) {
      const response = await call(server.url, 'PUT', path, { tag: 'two' });
      const cause = {
        type: 'version_conflict_engine_exception',
        reason: '[c1]: version conflict, document already exists (current version [1])',
        index_uuid: uuid,
        shard: '0',
        index: 'docs',
      };
      expect(response.status).toBe(409);
      expect(response.json).toEqual({ error: { root_cause: [cause], ...cause }, status: 409 });
    }
    expect(await es().getSource({ index: 'docs', id: 'c1' })).toEqual({ tag: 'one' });
  });

  it('applies if_seq_no/if_primary_term and answers a mismatch with 409', async () => {
    const written = await es().index({ index: 'docs', id: 'o1', document: { tag: 'a' } });
    const ok = await es().index({
      index: 'docs',
      id: 'o1',
      document: { tag: 'b' },
      if_seq_no: written._seq_no,
      if_primary_term: 1,
    });
    expect(ok.result).toBe('updated');
    const stale = await failure(
      es().index({
        index: 'docs',
        id: 'o1',
        document: { tag: 'c' },
        if_seq_no: written._seq_no,
        if_primary_term: 1,
      }),
    );
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      error: {
        type: 'version_conflict_engine_exception',
        reason: `[o1]: version conflict, required seqNo [${written._seq_no}], primary term [1]. current document has seqNo [${ok._seq_no}] and primary term [1]`,
      },
    });
  });

  it('deletes (version+1) and answers a second delete with 404 result not_found in the same shape', async () => {
    await es().index({ index: 'docs', id: 'd1', document: { tag: 'a' } });
    const deleted = await call(server.url, 'DELETE', '/docs/_doc/d1');
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ _index: 'docs', _id: 'd1', _version: 2, result: 'deleted' });
    const again = await call(server.url, 'DELETE', '/docs/_doc/d1');
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({
      _index: 'docs',
      _id: 'd1',
      result: 'not_found',
      _shards: { total: 2, successful: 1, failed: 0 },
    });
    const { rows } = await server.pool.query("SELECT 1 FROM documents WHERE id = 'd1'");
    expect(rows).toHaveLength(0);
    expect((await call(server.url, 'DELETE', '/no-index-here/_doc/1')).status).toBe(404);
    expect(await es().indices.exists({ index: 'no-index-here' })).toBe(false);
  });

  it('updates with a partial doc, reports noop when nothing changes, and merges objects deeply', async () => {
    await es().index({ index: 'docs', id: 'u1', document: { tag: 'a', meta: { x: 1, y: 2 } } });
    const updated = await es().update({ index: 'docs', id: 'u1', doc: { meta: { y: 3 } } });
    expect(updated).toMatchObject({ result: 'updated', _version: 2 });
    expect(await es().getSource({ index: 'docs', id: 'u1' })).toEqual({ tag: 'a', meta: { x: 1, y: 3 } });
    const noop = await call(server.url, 'POST', '/docs/_update/u1', { doc: { meta: { y: 3 } } });
    expect(noop.json).toEqual({
      _index: 'docs',
      _id: 'u1',
      _version: 2,
      result: 'noop',
      _shards: { total: 0, successful: 0, failed: 0 },
      _seq_no: updated._seq_no,
      _primary_term: 1,
    });
    const forced = await es().update({
      index: 'docs',
      id: 'u1',
      doc: { meta: { y: 3 } },
      detect_noop: false,
    });
    expect(forced).toMatchObject({ result: 'updated', _version: 3 });
  });

  it('returns the updated source under get when _source is asked for', async () => {
    await es().index({ index: 'docs', id: 'gs', document: { tag: 'a', n: 1 } });
    const viaParam = await call(server.url, 'POST', '/docs/_update/gs?_source=tag', { doc: { n: 2 } });
    expect(viaParam.json).toMatchObject({
      result: 'updated',
      get: { found: true, _source: { tag: 'a' }, _primary_term: 1 },
    });
    const viaBody = await call(server.url, 'POST', '/docs/_update/gs', { doc: { n: 3 }, _source: true });
    expect((viaBody.json as { get: unknown }).get).toEqual({
      _seq_no: (viaBody.json as { _seq_no: number })._seq_no,
      _primary_term: 1,
      found: true,
      _source: { tag: 'a', n: 3 },
    });
  });

  it('answers an update of a missing document with document_missing_exception, and upserts when asked', async () => {
    const missing = await call(server.url, 'POST', '/docs/_update/nope', { doc: { tag: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: {
        type: 'document_missing_exception',
        reason: '[nope]: document missing',
        index_uuid: uuid,
        shard: '0',
        index: 'docs',
      },
    });
    const upsert = await call(server.url, 'POST', '/docs/_update/up1', {
      doc: { tag: 'doc' },
      upsert: { tag: 'upsert' },
    });
    expect(upsert.status).toBe(201);
    expect(upsert.json).toMatchObject({ result: 'created', _version: 1 });
    expect(await es().getSource({ index: 'docs', id: 'up1' })).toEqual({ tag: 'upsert' });
    await es().update({ index: 'docs', id: 'up2', doc: { tag: 'as-upsert' }, doc_as_upsert: true });
    expect(await es().getSource({ index: 'docs', id: 'up2' })).toEqual({ tag: 'as-upsert' });
  });

  it('runs update scripts: increments with params, noop keeps the version, delete removes', async () => {
    await es().index({ index: 'docs', id: 's1', document: { n: 1 } });
    const bumped = await call(server.url, 'POST', '/docs/_update/s1', {
      script: { source: 'ctx._source.n += params.by', params: { by: 4 } },
    });
    expect(bumped.status).toBe(200);
    expect(bumped.json).toMatchObject({ result: 'updated', _version: 2 });
    expect(await es().getSource({ index: 'docs', id: 's1' })).toEqual({ n: 5 });

    const noop = await call(server.url, 'POST', '/docs/_update/s1', {
      script: { source: "if (ctx._source.n > 3) { ctx.op = 'noop' }" },
    });
    expect(noop.json).toMatchObject({ result: 'noop', _version: 2 });

    const removed = await call(server.url, 'POST', '/docs/_update/s1', { script: "ctx.op = 'delete'" });
    expect(removed.json).toMatchObject({ result: 'deleted', _version: 3 });
    expect((await call(server.url, 'GET', '/docs/_doc/s1')).status).toBe(404);
  });

  it('answers a failing update script with 400 and leaves the document as it was', async () => {
    await es().index({ index: 'docs', id: 's2', document: { n: 1 } });
    const broken = await call(server.url, 'POST', '/docs/_update/s2', {
      script: { source: 'ctx._source.n +' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'failed to execute script',
        caused_by: { type: 'script_exception', reason: 'compile error' },
      },
    });
    expect(await es().getSource({ index: 'docs', id: 's2' })).toEqual({ n: 1 });
  });

  it('validates the update body', async () => {
    const neither = await call(server.url, 'POST', '/docs/_update/s1', {});
    expect(neither.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: script or doc is missing;',
      },
    });
    const unknown = await call(server.url, 'POST', '/docs/_update/s1', { doc: {}, nope: 1 });
    expect(unknown.json).toMatchObject({
      error: { type: 'x_content_parse_exception', reason: '[1:2] [UpdateRequest] unknown field [nope]' },
    });
  });

  it('rejects out-of-range numbers and bad dates with document_parsing_exception and stores nothing', async () => {
    const big = await call(server.url, 'PUT', '/docs/_doc/bad1', '{"n": 2147483648}');
    expect(big.status).toBe(400);
    expect(big.json).toEqual({
      error: {
        root_cause: [
          {
            type: 'document_parsing_exception',
            reason:
              "[1:7] failed to parse field [n] of type [integer] in document with id 'bad1'. Preview of field's value: '2147483648'",
          },
        ],
        type: 'document_parsing_exception',
        reason:
          "[1:7] failed to parse field [n] of type [integer] in document with id 'bad1'. Preview of field's value: '2147483648'",
        // A JSON number goes through Jackson's getIntValue (ES NumberFieldMapperTests#testOutOfRangeValues).
        caused_by: {
          type: 'x_content_parse_exception',
          reason:
            '[1:17] Numeric value (2147483648) out of range of int (-2147483648 - 2147483647)\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 17]',
        },
      },
      status: 400,
    });
    const date = await call(server.url, 'PUT', '/docs/_doc/bad2', { when: '02/01/2024' });
    expect(date.json).toMatchObject({
      error: { type: 'document_parsing_exception', caused_by: { type: 'illegal_argument_exception' } },
    });
    const { rows } = await server.pool.query("SELECT 1 FROM documents WHERE id IN ('bad1', 'bad2')");
    expect(rows).toHaveLength(0);
  });

  it('refuses empty and over-long ids', async () => {
    const long = await call(server.url, 'PUT', `/docs/_doc/${'x'.repeat(513)}`, { tag: 'x' });
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: `id [${'x'.repeat(513)}] is too long, must be no longer than 512 bytes but was: 513`,
      },
    });
  });

  it('auto-creates a missing index with dynamic mapping on write', async () => {
    await es().index({ index: 'auto-made', id: '1', document: { title: 'hello', count: 3, ok: true } });
    expect(await es().indices.getMapping({ index: 'auto-made' })).toEqual({
      'auto-made': {
        mappings: {
          properties: {
            count: { type: 'long' },
            ok: { type: 'boolean' },
            title: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
          },
        },
      },
    });
  });

  it('refuses writes to a write-blocked index with 403 cluster_block_exception while reads still work', async () => {
    await es().index({ index: 'blocked', id: '1', document: { a: 1 } });
    expect(
      await es().indices.putSettings({ index: 'blocked', settings: { 'index.blocks.write': true } }),
    ).toEqual({ acknowledged: true });
    const cause = {
      type: 'cluster_block_exception',
      reason: 'index [blocked] blocked by: [FORBIDDEN/8/index write (api)];',
    };
    for (const [method, path, body] of [
      ['PUT', '/blocked/_doc/2', { a: 2 }],
      ['POST', '/blocked/_update/1', { doc: { a: 3 } }],
      ['DELETE', '/blocked/_doc/1', undefined],
    ] as const) {
      const response = await call(server.url, method, path, body);
      expect(response.status).toBe(403);
      expect(response.json).toEqual({ error: { root_cause: [cause], ...cause }, status: 403 });
    }
    expect(await es().getSource({ index: 'blocked', id: '1' })).toEqual({ a: 1 });
    await es().indices.putSettings({ index: 'blocked', settings: { index: { blocks: { write: false } } } });
    expect((await es().index({ index: 'blocked', id: '2', document: { a: 2 } })).result).toBe('created');
  });

  it('refuses writes to a read_only index with its own block', async () => {
    await es().index({ index: 'ro', id: '1', document: { a: 1 } });
    await es().indices.putSettings({ index: 'ro', settings: { 'index.blocks.read_only': true } });
    const response = await call(server.url, 'PUT', '/ro/_doc/2', { a: 2 });
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({
      error: {
        type: 'cluster_block_exception',
        reason: 'index [ro] blocked by: [FORBIDDEN/5/index read-only (api)];',
      },
    });
  });

  it('refuses document reads on an index with index.blocks.read', async () => {
    await es().index({ index: 'rb', id: '1', document: { a: 1 } });
    await es().indices.putSettings({ index: 'rb', settings: { 'index.blocks.read': true } });
    const response = await call(server.url, 'GET', '/rb/_doc/1');
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({
      error: {
        type: 'cluster_block_exception',
        reason: 'index [rb] blocked by: [FORBIDDEN/7/index read (api)];',
      },
    });
  });

  it('asks for a source when the index API gets no body', async () => {
    const response = await call(server.url, 'PUT', '/docs/_doc/nobody');
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: source is missing;2: content type is missing;',
      },
    });
  });

  it('rejects invalid optimistic-concurrency parameters', async () => {
    const response = await call(server.url, 'PUT', '/docs/_doc/x?if_seq_no=1', { tag: 'x' });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: ifSeqNo is set, but primary term is [0];',
      },
    });
  });
});
