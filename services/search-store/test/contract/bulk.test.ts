import { useSearchStore } from '../support/use-search-store';
import { call, client8, client9 } from '../support/http';

const ndjson = (...lines: unknown[]) =>
  lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
const NDJSON = { 'content-type': 'application/x-ndjson' };

describe('bulk API', () => {
  const server = useSearchStore({ MAX_REQUEST_BYTES: String(256 * 1024) });
  beforeAll(async () => {
    await client8(server.url).indices.create({
      index: 'strict',
      mappings: { dynamic: 'strict', properties: { n: { type: 'byte' } } },
    });
  });

  it('runs index, create, update and delete in order with per-item results', async () => {
    const response = await call(
      server.url,
      'POST',
      '/_bulk',
      ndjson(
        { index: { _index: 'b1', _id: '1' } },
        { a: 1 },
        { create: { _index: 'b1', _id: '2' } },
        { a: 2 },
        { update: { _index: 'b1', _id: '1' } },
        { doc: { a: 10 } },
        { delete: { _index: 'b1', _id: '2' } },
      ),
      NDJSON,
    );
    expect(response.status).toBe(200);
    const body = response.json as {
      errors: boolean;
      took: number;
      items: Record<string, Record<string, unknown>>[];
    };
    expect(body.errors).toBe(false);
    expect(typeof body.took).toBe('number');
    const shards = { total: 2, successful: 1, failed: 0 };
    expect(body.items).toEqual([
      {
        index: {
          _index: 'b1',
          _id: '1',
          _version: 1,
          result: 'created',
          _shards: shards,
          _seq_no: 0,
          _primary_term: 1,
          status: 201,
        },
      },
      {
        create: {
          _index: 'b1',
          _id: '2',
          _version: 1,
          result: 'created',
          _shards: shards,
          _seq_no: 1,
          _primary_term: 1,
          status: 201,
        },
      },
      {
        update: {
          _index: 'b1',
          _id: '1',
          _version: 2,
          result: 'updated',
          _shards: shards,
          _seq_no: 2,
          _primary_term: 1,
          status: 200,
        },
      },
      {
        delete: {
          _index: 'b1',
          _id: '2',
          _version: 2,
          result: 'deleted',
          _shards: shards,
          _seq_no: 3,
          _primary_term: 1,
          status: 200,
        },
      },
    ]);
    const { rows } = await server.pool.query(
      "SELECT d.id, d.source::text AS source, d.version, d.seq_no FROM documents d JOIN indices i USING (index_id) WHERE i.name = 'b1'",
    );
    expect(rows).toEqual([{ id: '1', source: '{"a":10}', version: '2', seq_no: '2' }]);
  });

  it('reports failed items without root_cause and writes the valid ones', async () => {
    await client8(server.url).index({ index: 'b2', id: 'exists', document: { a: 1 } });
    const response = await call(
      server.url,
      'POST',
      '/b2/_bulk',
      ndjson(
        { create: { _id: 'exists' } },
        { a: 2 },
        { index: { _id: 'fine' } },
        { a: 3 },
        { delete: { _id: 'ghost' } },
        { update: { _id: 'ghost' } },
        { doc: { a: 4 } },
        { index: { _index: 'strict', _id: 's1' } },
        { n: 1, extra: true },
        { index: { _index: 'strict', _id: 's2' } },
        { n: 500 },
        { index: { _id: '' } },
        { a: 5 },
        { index: { _id: 'broken' } },
        '{"a": ',
      ),
      NDJSON,
    );
    expect(response.status).toBe(200);
    const body = response.json as { errors: boolean; items: Record<string, Record<string, unknown>>[] };
    expect(body.errors).toBe(true);
    const { rows } = await server.pool.query<{ uuid: string }>("SELECT uuid FROM indices WHERE name = 'b2'");
    expect(body.items[0]).toEqual({
      create: {
        _index: 'b2',
        _id: 'exists',
        status: 409,
        error: {
          type: 'version_conflict_engine_exception',
          reason: '[exists]: version conflict, document already exists (current version [1])',
          index_uuid: rows[0]?.uuid,
          shard: '0',
          index: 'b2',
        },
      },
    });
    expect(body.items[1]?.index).toMatchObject({ _id: 'fine', result: 'created', status: 201 });
    expect(body.items[2]?.delete).toMatchObject({ _id: 'ghost', result: 'not_found', status: 404 });
    expect(body.items[2]?.delete).not.toHaveProperty('error');
    expect(body.items[3]?.update).toMatchObject({
      status: 404,
      error: { type: 'document_missing_exception', reason: '[ghost]: document missing' },
    });
    expect(body.items[4]?.index).toMatchObject({
      _index: 'strict',
      status: 400,
      error: {
        type: 'strict_dynamic_mapping_exception',
        reason: '[1:16] mapping set to strict, dynamic introduction of [extra] within [_doc] is not allowed',
      },
    });
    expect(body.items[5]?.index).toMatchObject({
      status: 400,
      error: {
        type: 'document_parsing_exception',
        caused_by: { reason: 'Value [500] is out of range for a byte' },
      },
    });
    expect(body.items[6]?.index).toMatchObject({
      status: 400,
      error: { type: 'illegal_argument_exception', reason: 'if _id is specified it must not be empty' },
    });
    expect(body.items[7]?.index).toMatchObject({
      _id: 'broken',
      status: 400,
      error: { type: 'document_parsing_exception' },
    });
    for (const item of body.items) expect(JSON.stringify(item)).not.toContain('root_cause');
    const stored = await server.pool.query(
      "SELECT id FROM documents WHERE id IN ('fine', 's1', 's2', 'broken', 'ghost') ORDER BY id",
    );
    expect(stored.rows).toEqual([{ id: 'fine' }]);
  });

  it.each([
    [
      'an empty action',
      ndjson({}, { a: 1 }),
      'Malformed action/metadata line [1], expected FIELD_NAME but found [END_OBJECT]',
    ],
    [
      'an unknown action',
      ndjson({ index: { _index: 'x' } }, { a: 1 }, { upsert: {} }, { a: 1 }),
      'Malformed action/metadata line [3], expected field [create], [delete], [index] or [update] but found [upsert]',
    ],
    [
      'a missing final newline',
      '{"index":{"_index":"x"}}\n{"a":1}',
      'The bulk request must be terminated by a newline [\\n]',
    ],
    [
      'an unknown action parameter',
      ndjson({ index: { _index: 'x', nope: 1 } }, { a: 1 }),
      'Action/metadata line [1] contains an unknown parameter [nope]',
    ],
  ])('rejects the whole request for %s and writes nothing', async (_what, body, reason) => {
    const response = await call(server.url, 'POST', '/_bulk', body, NDJSON);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: {
        root_cause: [{ type: 'illegal_argument_exception', reason }],
        type: 'illegal_argument_exception',
        reason,
      },
      status: 400,
    });
    expect((await call(server.url, 'HEAD', '/x')).status).toBe(404);
  });

  it('rejects an action line that is not JSON with the parser error', async () => {
    const response = await call(server.url, 'POST', '/_bulk', '{"index": {"_index": "x"}\n{"a":1}\n', NDJSON);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { type: 'x_content_e_o_f_exception' }, status: 400 });
    const garbage = await call(server.url, 'POST', '/_bulk', 'not json\n', NDJSON);
    expect(garbage.status).toBe(400);
    expect(garbage.json).toMatchObject({ error: { type: 'x_content_parse_exception' }, status: 400 });
  });

  it('rejects a delete or update without _id for the whole request', async () => {
    const response = await call(server.url, 'POST', '/_bulk', ndjson({ delete: { _index: 'x' } }), NDJSON);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: { type: 'action_request_validation_exception', reason: 'Validation Failed: 1: id is missing;' },
    });
  });

  it('answers a bulk over MAX_REQUEST_BYTES with 413 in the envelope and writes nothing', async () => {
    const lines: unknown[] = [];
    for (let i = 0; i < 3000; i += 1)
      lines.push({ index: { _index: 'too-big', _id: String(i) } }, { pad: 'x'.repeat(100) });
    const response = await call(server.url, 'POST', '/_bulk', ndjson(...lines), NDJSON);
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ error: { type: 'content_too_long_exception' }, status: 413 });
    expect((await call(server.url, 'HEAD', '/too-big')).status).toBe(404);
  });

  it('writes a bulk larger than one batch with consecutive seq_nos (official clients, vendor ndjson)', async () => {
    const operations = [];
    // 2,600 items: a full batch of 2,500 (bulk.route.ts) and a partial one.
    for (let i = 0; i < 2600; i += 1) operations.push({ index: { _index: 'many', _id: String(i) } }, { i });
    const result = await client9(server.url).bulk({ operations, refresh: 'wait_for' });
    expect(result.errors).toBe(false);
    expect(result.items).toHaveLength(2600);
    const { rows } = await server.pool.query<{ count: string; max: string }>(
      "SELECT count(*) AS count, max(seq_no) AS max FROM documents d JOIN indices i USING (index_id) WHERE i.name = 'many'",
    );
    expect(rows[0]).toEqual({ count: '2600', max: '2599' });
    const eight = await client8(server.url).bulk({ operations: [{ delete: { _index: 'many', _id: '0' } }] });
    expect(eight.items[0]?.delete?.result).toBe('deleted');
  });

  it('answers items for a write-blocked index with 403 per item', async () => {
    await client8(server.url).index({ index: 'b3', id: '1', document: { a: 1 } });
    await client8(server.url).indices.putSettings({ index: 'b3', settings: { 'index.blocks.write': true } });
    const response = await call(
      server.url,
      'POST',
      '/_bulk',
      ndjson(
        { index: { _index: 'b3', _id: '2' } },
        { a: 2 },
        { index: { _index: 'b4', _id: '1' } },
        { a: 1 },
      ),
      NDJSON,
    );
    const body = response.json as { errors: boolean; items: Record<string, Record<string, unknown>>[] };
    expect(body.items[0]).toEqual({
      index: {
        _index: 'b3',
        _id: '2',
        status: 403,
        error: {
          type: 'cluster_block_exception',
          reason: 'index [b3] blocked by: [FORBIDDEN/8/index write (api)];',
        },
      },
    });
    expect(body.items[1]?.index).toMatchObject({ status: 201 });
  });

  it('adds forced_refresh to items with refresh=true', async () => {
    const response = await call(
      server.url,
      'POST',
      '/_bulk?refresh=true',
      ndjson({ index: { _index: 'b5', _id: '1' } }, { a: 1 }),
      NDJSON,
    );
    expect(
      (response.json as { items: Record<string, Record<string, unknown>>[] }).items[0]?.index,
    ).toMatchObject({ forced_refresh: true });
  });

  it("feeds the official client's helpers.bulk, its failed documents reported through onDrop", async () => {
    const es = client8(server.url);
    const dropped: unknown[] = [];
    // helpers.bulk sends each datasource item as the document; onDocument picks its action.
    const documents: { n: number | string }[] = [
      ...Array.from({ length: 1200 }, (_, i) => ({ n: i })),
      { n: 'not a byte' },
    ];
    const stats = await es.helpers.bulk({
      datasource: documents,
      flushBytes: 4 * 1024,
      refreshOnCompletion: true,
      retries: 0,
      onDocument: (d) =>
        typeof d.n === 'number'
          ? { index: { _index: 'helper-bulk', _id: `h${d.n}` } }
          : { index: { _index: 'strict', _id: 'bad' } },
      onDrop: (drop) => dropped.push(drop),
    });
    expect(stats).toMatchObject({ total: 1201, successful: 1200, failed: 1, aborted: false });
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({
      status: 400,
      error: { type: 'document_parsing_exception' },
      document: { n: 'not a byte' },
    });
    expect((await es.count({ index: 'helper-bulk' })).count).toBe(1200);
    expect((await es.get({ index: 'helper-bulk', id: 'h1199' }))._source).toEqual({ n: 1199 });
  });
});
