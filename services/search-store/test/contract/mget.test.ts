import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

/** ES "Multi get API" (docs-multi-get), over raw HTTP and through the official client. */
describe('multi get API', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().index({ index: 'm1', id: '1', document: { a: 1, b: { c: 'x', d: 'y' } }, refresh: true });
    await es().index({ index: 'm1', id: '2', document: { a: 2, b: { c: 'z' } } });
    await es().index({ index: 'm2', id: '1', document: { other: true } });
    await es().indices.putAlias({ index: 'm2', name: 'm2-alias' });
    await es().indices.putAlias({ index: 'm1', name: 'both' });
    await es().indices.putAlias({ index: 'm2', name: 'both' });
  });

  const post = (path: string, body: unknown) => call(server.url, 'POST', path, body);

  it('answers each document as GET _doc does, in request order, across indices and aliases', async () => {
    const response = await post('/_mget', {
      docs: [
        { _index: 'm1', _id: '2' },
        { _index: 'm2-alias', _id: '1' },
        { _index: 'm1', _id: 'nope' },
        { _index: 'm1', _id: 1 },
      ],
    });
    expect(response.status).toBe(200);
    const single = await call(server.url, 'GET', '/m1/_doc/2');
    const docs = (response.json as { docs: unknown[] }).docs;
    expect(docs[0]).toEqual(single.json);
    expect(docs).toEqual([
      {
        _index: 'm1',
        _id: '2',
        _version: 1,
        _seq_no: 1,
        _primary_term: 1,
        found: true,
        _source: { a: 2, b: { c: 'z' } },
      },
      {
        _index: 'm2',
        _id: '1',
        _version: 1,
        _seq_no: 0,
        _primary_term: 1,
        found: true,
        _source: { other: true },
      },
      { _index: 'm1', _id: 'nope', found: false },
      {
        _index: 'm1',
        _id: '1',
        _version: 1,
        _seq_no: 0,
        _primary_term: 1,
        found: true,
        _source: { a: 1, b: { c: 'x', d: 'y' } },
      },
    ]);
    // _source byte for byte, as GET returns it.
    expect(response.text).toContain('"_source":{"other":true}');
  });

  it('takes ids with the path index', async () => {
    const response = await post('/m1/_mget', { ids: ['1', 3] });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      docs: [
        expect.objectContaining({ _index: 'm1', _id: '1', found: true }),
        { _index: 'm1', _id: '3', found: false },
      ],
    });
  });

  it('answers GET with the body in ?source=', async () => {
    const source = encodeURIComponent(JSON.stringify({ ids: ['2'] }));
    const response = await call(
      server.url,
      'GET',
      `/m1/_mget?source=${source}&source_content_type=application/json`,
    );
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ docs: [{ _index: 'm1', _id: '2', found: true }] });
  });

  it('uses the path index as the default and a doc _index over it', async () => {
    const response = await post('/m1/_mget', { docs: [{ _id: '2' }, { _index: 'm2', _id: '1' }] });
    const docs = (response.json as { docs: Record<string, unknown>[] }).docs;
    expect(docs.map((d) => [d._index, d._id, d.found])).toEqual([
      ['m1', '2', true],
      ['m2', '1', true],
    ]);
  });

  it('answers a missing index or an alias to two indices as that item error only', async () => {
    const response = await post('/_mget', {
      docs: [
        { _index: 'absent', _id: '1' },
        { _index: 'both', _id: '1' },
        { _index: 'm1', _id: '1' },
      ],
    });
    expect(response.status).toBe(200);
    const docs = (response.json as { docs: Record<string, unknown>[] }).docs;
    const notFound = {
      type: 'index_not_found_exception',
      reason: 'no such index [absent]',
      'resource.type': 'index_or_alias',
      'resource.id': 'absent',
      index_uuid: '_na_',
      index: 'absent',
    };
    expect(docs[0]).toEqual({ _index: 'absent', _id: '1', error: { root_cause: [notFound], ...notFound } });
    expect(docs[1]).toMatchObject({
      _index: 'both',
      _id: '1',
      error: {
        type: 'illegal_argument_exception',
        reason: expect.stringContaining('alias [both] has more than one index associated with it') as string,
      },
    });
    expect(docs[2]).toMatchObject({ _index: 'm1', _id: '1', found: true });
  });

  it('filters _source per document, with the query parameters as defaults', async () => {
    const response = await post('/m1/_mget?_source_includes=b&_source_excludes=b.d', {
      docs: [
        { _id: '1' },
        { _id: '1', _source: false },
        { _id: '1', _source: true },
        { _id: '1', _source: 'a' },
        { _id: '1', _source: ['a', 'b.d'] },
        { _id: '1', _source: { includes: ['b.*'], excludes: ['b.c'] } },
      ],
    });
    expect(response.status).toBe(200);
    const docs = (response.json as { docs: Record<string, unknown>[] }).docs;
    expect(docs.map((d) => d._source)).toEqual([
      { b: { c: 'x' } },
      undefined,
      { a: 1, b: { c: 'x', d: 'y' } },
      { a: 1 },
      { a: 1, b: { d: 'y' } },
      { b: { d: 'y' } },
    ]);
    expect(docs[1]).toEqual({
      _index: 'm1',
      _id: '1',
      _version: 1,
      _seq_no: 0,
      _primary_term: 1,
      found: true,
    });
    const off = await post('/m1/_mget?_source=false', { ids: ['1'] });
    expect((off.json as { docs: Record<string, unknown>[] }).docs[0]).not.toHaveProperty('_source');
  });

  it("answers an item whose version is not the document's as that item's version conflict", async () => {
    await es().index({ index: 'mv', id: 'v', document: { n: 1 } });
    await es().index({ index: 'mv', id: 'v', document: { n: 2 } }); // now version 2
    const response = await post('/_mget', {
      docs: [
        { _index: 'mv', _id: 'v', version: 2 },
        { _index: 'mv', _id: 'v', version: 1 },
        { _index: 'mv', _id: 'v', version: 2, version_type: 'external' },
        { _index: 'mv', _id: 'missing', version: 5 },
      ],
    });
    expect(response.status).toBe(200);
    const docs = (response.json as { docs: Record<string, unknown>[] }).docs;
    expect(docs[0]).toMatchObject({ _id: 'v', _version: 2, found: true, _source: { n: 2 } });
    expect(docs[1]).toMatchObject({
      _index: 'mv',
      _id: 'v',
      error: {
        type: 'version_conflict_engine_exception',
        reason: '[v]: version conflict, current version [2] is different than the one provided [1]',
        index: 'mv',
        shard: '0',
      },
    });
    expect(docs[2]).toMatchObject({ _id: 'v', _version: 2, found: true });
    // A missing document stays not found, whatever version was asked (as GET).
    expect(docs[3]).toEqual({ _index: 'mv', _id: 'missing', found: false });
    // An internal version must be positive (GET's rule).
    const bad = await post('/_mget', { docs: [{ _index: 'mv', _id: 'v', version: 0 }] });
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { type: string } }).error.type).toBe('action_request_validation_exception');
  });

  it('accepts realtime, refresh, routing, preference and per-doc routing', async () => {
    const response = await post('/m1/_mget?realtime=false&refresh=true&routing=r&preference=_local', {
      docs: [{ _id: '1', routing: 'r', stored_fields: ['a'] }],
    });
    expect(response.status).toBe(200);
    expect((response.json as { docs: Record<string, unknown>[] }).docs[0]).toMatchObject({ found: true });
  });

  it('reads each index with one statement for all its ids', async () => {
    const query = jest.spyOn(server.pool, 'query');
    try {
      const ids = Array.from({ length: 50 }, (_, i) => String(i));
      const response = await post('/_mget', {
        docs: [...ids.map((id) => ({ _index: 'm1', _id: id })), { _index: 'm2', _id: '1' }],
      });
      expect(response.status).toBe(200);
      const documentReads = query.mock.calls.filter((args) => /FROM documents/.test(String(args[0])));
      expect(documentReads).toHaveLength(2);
    } finally {
      query.mockRestore();
    }
  });

  it.each([
    ['an empty docs list', '/_mget', { docs: [] }, 'Validation Failed: 1: no documents to get;'],
    ['an empty body', '/_mget', {}, 'Validation Failed: 1: no documents to get;'],
    ['an empty ids list', '/m1/_mget', { ids: [] }, 'Validation Failed: 1: no documents to get;'],
    [
      'ids without an index',
      '/_mget',
      { ids: ['1', '2'] },
      'Validation Failed: 1: index is missing for doc 0;2: index is missing for doc 1;',
    ],
    [
      'a doc without _id',
      '/_mget',
      { docs: [{ _index: 'm1' }] },
      'Validation Failed: 1: id is missing for doc 0;',
    ],
    [
      'a doc without _index',
      '/_mget',
      { docs: [{ _id: '1' }] },
      'Validation Failed: 1: index is missing for doc 0;',
    ],
  ])('refuses %s with action_request_validation_exception', async (_name, path, body, reason) => {
    const response = await post(path, body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: {
        root_cause: [{ type: 'action_request_validation_exception', reason }],
        type: 'action_request_validation_exception',
        reason,
      },
      status: 400,
    });
  });

  it('refuses no body at all', async () => {
    const response = await call(server.url, 'GET', '/_mget');
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { type: 'action_request_validation_exception' } });
  });

  it.each([
    [
      'an unknown top-level key',
      { doc: [] },
      'unknown key [doc] for a START_ARRAY, expected [docs] or [ids]',
    ],
    [
      'an unknown doc key',
      { docs: [{ _index: 'm1', _id: '1', _type: 'x' }] },
      'failed to parse multi get request. unknown field [_type]',
    ],
    [
      'docs that is not a list',
      { docs: { _id: '1' } },
      'unknown key [docs] for a START_OBJECT, expected [docs] or [ids]',
    ],
    [
      'an id that is an object',
      { docs: [{ _index: 'm1', _id: { a: 1 } }] },
      'failed to parse multi get request. unexpected value for [_id]',
    ],
  ])('refuses %s with parse_exception', async (_name, body, reason) => {
    const response = await post('/_mget', body);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { type: 'parse_exception', reason }, status: 400 });
  });

  it('refuses an unknown query parameter', async () => {
    const response = await post('/_mget?version=3', { docs: [{ _index: 'm1', _id: '1' }] });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
  });

  it('works through the official client', async () => {
    const result = await es().mget<{ a: number }>({
      index: 'm1',
      ids: ['1', '404'],
      _source_includes: ['a'],
    });
    expect(result.docs).toEqual([
      { _index: 'm1', _id: '1', _version: 1, _seq_no: 0, _primary_term: 1, found: true, _source: { a: 1 } },
      { _index: 'm1', _id: '404', found: false },
    ]);
    const mixed = await es().mget({
      docs: [
        { _index: 'absent', _id: '1' },
        { _index: 'm2', _id: '1' },
      ],
    });
    expect(mixed.docs[0]).toMatchObject({ error: { type: 'index_not_found_exception' } });
    const bad = await failure(es().mget({ docs: [] }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { type: 'action_request_validation_exception' } });
  });
});
