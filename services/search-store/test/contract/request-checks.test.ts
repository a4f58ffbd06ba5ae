import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

/** Issue 20's request checks: versions on GET, require_alias, refresh_interval, empty names, reindex. */
describe('request checks (issue 20)', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().index({ index: 'docs', id: '1', document: { a: 1 } });
    await es().index({ index: 'docs', id: '1', document: { a: 2 } }); // version 2
    await es().indices.create({ index: 'target' });
    await es().indices.putAlias({ index: 'target', name: 'target-alias' });
  });

  describe('version and version_type on GET', () => {
    it('answers the document when the version matches, 409 when it differs', async () => {
      const ok = await es().get({ index: 'docs', id: '1', version: 2 });
      expect(ok._version).toBe(2);
      const external = await es().get({ index: 'docs', id: '1', version: 2, version_type: 'external' });
      expect(external.found).toBe(true);
      const conflict = await call(server.url, 'GET', '/docs/_doc/1?version=1');
      expect(conflict.status).toBe(409);
      expect(conflict.json).toEqual({
        error: {
          root_cause: [expect.objectContaining({ type: 'version_conflict_engine_exception' })],
          type: 'version_conflict_engine_exception',
          reason: '[1]: version conflict, current version [2] is different than the one provided [1]',
          index_uuid: expect.any(String),
          shard: '0',
          index: 'docs',
        },
        status: 409,
      });
      // external_gte reads ask for equality too (VersionType#isVersionConflictForReads).
      expect((await call(server.url, 'GET', '/docs/_doc/1?version=3&version_type=external_gte')).status).toBe(
        409,
      );
      expect((await call(server.url, 'GET', '/docs/_source/1?version=1')).status).toBe(409);
      expect((await call(server.url, 'HEAD', '/docs/_doc/1?version=1')).status).toBe(409);
      // A missing document stays a 404, whatever the version.
      const missing = await call(server.url, 'GET', '/docs/_doc/nope?version=1');
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ _index: 'docs', _id: 'nope', found: false });
    });

    it('refuses versions invalid for reads and unknown version types', async () => {
      const zero = await call(server.url, 'GET', '/docs/_doc/1?version=0');
      expect(zero.status).toBe(400);
      expect(zero.json).toMatchObject({
        error: {
          type: 'action_request_validation_exception',
          reason: 'Validation Failed: 1: illegal version value [0] for version type [INTERNAL];',
        },
      });
      // external accepts 0 (a version conflict here, not a validation error).
      expect((await call(server.url, 'GET', '/docs/_doc/1?version=0&version_type=external')).status).toBe(
        409,
      );
      const bad = await call(server.url, 'GET', '/docs/_doc/1?version=2&version_type=force');
      expect(bad.json).toMatchObject({
        error: { type: 'illegal_argument_exception', reason: 'No version type match [force]' },
      });
    });

    it('checks versions on writes as DocWriteRequest#validateSeqNoBasedCASParams', async () => {
      const noVersion = await call(server.url, 'PUT', '/docs/_doc/2?version_type=external', { a: 1 });
      expect(noVersion.status).toBe(400);
      expect(noVersion.json).toMatchObject({
        error: {
          type: 'action_request_validation_exception',
          reason: 'Validation Failed: 1: illegal version value [-3] for version type [EXTERNAL];',
        },
      });
      const cas = await call(
        server.url,
        'PUT',
        '/docs/_doc/2?version=5&version_type=external&if_seq_no=1&if_primary_term=1',
        {
          a: 1,
        },
      );
      expect(cas.json).toMatchObject({
        error: { reason: 'Validation Failed: 1: compare and write operations can not use versioning;' },
      });
      expect(await es().exists({ index: 'docs', id: '2' })).toBe(false);
      const external = await es().index({
        index: 'docs',
        id: '2',
        version: 7,
        version_type: 'external',
        document: { a: 1 },
      });
      expect(external._version).toBe(7);
      const lower = await failure(
        es().index({ index: 'docs', id: '2', version: 6, version_type: 'external', document: { a: 2 } }),
      );
      expect(lower.status).toBe(409);
      expect(lower.body).toMatchObject({
        error: {
          reason: '[2]: version conflict, current version [7] is higher or equal to the one provided [6]',
        },
      });
    });
  });

  it('refuses versions and compare-and-set on create as IndexRequest#validate', async () => {
    const cases = [
      [
        '/docs/_create/c1?version=3&version_type=external',
        'create operations only support internal versioning. use index instead',
      ],
      [
        '/docs/_doc/c1?op_type=create&version=3',
        'create operations do not support explicit versions. use index instead',
      ],
      [
        '/docs/_doc/c1?op_type=create&if_seq_no=0&if_primary_term=1',
        'create operations do not support compare and set. use index instead',
      ],
    ] as const;
    for (const [path, reason] of cases) {
      const response = await call(server.url, 'PUT', path, { a: 1 });
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({
        error: { type: 'action_request_validation_exception', reason: `Validation Failed: 1: ${reason};` },
      });
    }
    expect(await es().exists({ index: 'docs', id: 'c1' })).toBe(false);
  });

  describe('require_alias', () => {
    const notAlias = (name: string) =>
      `no such index [${name}] and [require_alias] request flag is [true] and [${name}] is not an alias`;

    it('refuses index, create and update on a concrete index or a missing name, creating nothing', async () => {
      for (const [method, path, body] of [
        ['PUT', '/target/_doc/1?require_alias=true', { a: 1 }],
        ['PUT', '/fresh/_create/1?require_alias=true', { a: 1 }],
        ['POST', '/fresh/_update/1?require_alias=true', { doc: { a: 1 }, doc_as_upsert: true }],
      ] as const) {
        const response = await call(server.url, method, path, body);
        const name = path.split('/')[1]!;
        expect(response.status).toBe(404);
        expect(response.json).toMatchObject({
          error: { type: 'index_not_found_exception', reason: notAlias(name), index: name },
          status: 404,
        });
      }
      expect(await es().indices.exists({ index: 'fresh' })).toBe(false);
      expect((await es().count({ index: 'target' })).count).toBe(0);
    });

    it('writes through an alias', async () => {
      const written = await es().index({
        index: 'target-alias',
        id: '1',
        document: { a: 1 },
        require_alias: true,
      });
      expect(written._index).toBe('target');
    });

    it('checks each bulk item, the item flag overriding the URL', async () => {
      const bulk = await es().bulk({
        require_alias: true,
        operations: [
          { index: { _index: 'target', _id: 'b1' } },
          { a: 1 },
          { index: { _index: 'target-alias', _id: 'b2' } },
          { a: 1 },
          { index: { _index: 'target', _id: 'b3', require_alias: false } },
          { a: 1 },
          { create: { _index: 'bulk-fresh', _id: 'b4' } },
          { a: 1 },
          { delete: { _index: 'target', _id: 'zz' } },
        ],
      });
      const items = bulk.items.map((item) => Object.values(item)[0]!);
      expect(items.map((i) => i.status)).toEqual([404, 201, 201, 404, 404]);
      expect(items[0]?.error).toMatchObject({
        type: 'index_not_found_exception',
        reason: notAlias('target'),
      });
      expect(items[3]?.error).toMatchObject({ reason: notAlias('bulk-fresh') });
      expect(items[4]?.result).toBe('not_found'); // deletes ignore require_alias, as ES
      expect(await es().indices.exists({ index: 'bulk-fresh' })).toBe(false);
    });

    it('checks a reindex destination', async () => {
      const response = await call(server.url, 'POST', '/_reindex?require_alias=true', {
        source: { index: 'docs' },
        dest: { index: 'reindex-fresh' },
      });
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({ error: { reason: notAlias('reindex-fresh') } });
      expect(await es().indices.exists({ index: 'reindex-fresh' })).toBe(false);
    });
  });

  describe('refresh_interval', () => {
    it('accepts -1 and time values, refuses junk, and writes stay searchable at once with _refresh a no-op', async () => {
      await es().indices.create({ index: 'slow', settings: { refresh_interval: -1 } });
      expect(
        (await es().indices.getSettings({ index: 'slow' })).slow?.settings?.index?.refresh_interval,
      ).toBe('-1');
      await es().index({ index: 'slow', id: '1', document: { t: 'hello' } });
      expect((await es().search({ index: 'slow', query: { match: { t: 'hello' } } })).hits.hits).toHaveLength(
        1,
      );
      await es().indices.refresh({ index: 'slow' });
      await es().indices.putSettings({ index: 'slow', settings: { refresh_interval: '30s' } });
      // null resets the setting (ES "Update index settings API").
      const reset = await call(server.url, 'PUT', '/slow/_settings', { index: { refresh_interval: null } });
      expect(reset.status).toBe(200);
      const junk = await call(server.url, 'PUT', '/slow/_settings', { index: { refresh_interval: 'soon' } });
      expect(junk.status).toBe(400);
      expect(junk.json).toMatchObject({
        error: {
          type: 'illegal_argument_exception',
          reason:
            'failed to parse setting [index.refresh_interval] with value [soon] as a time value: unit is missing or unrecognized',
        },
      });
      const below = await call(server.url, 'PUT', '/other-slow', { settings: { refresh_interval: '-5s' } });
      expect(below.json).toMatchObject({
        error: {
          reason: 'failed to parse value [-5s] for setting [index.refresh_interval], must be >= [-1]',
        },
      });
    });
  });

  describe('empty field names', () => {
    it('refuses a document with an empty field name, at any depth, storing nothing', async () => {
      for (const [id, doc] of [
        ['e1', '{"": 1}'],
        ['e2', '{"obj": {"": 1}}'],
      ] as const) {
        const response = await call(server.url, 'PUT', `/docs/_doc/${id}`, doc);
        expect(response.status).toBe(400);
        expect(response.json).toMatchObject({
          error: {
            type: 'document_parsing_exception',
            reason: expect.stringMatching(
              /^\[\d+:\d+\] failed to parse: field name cannot be an empty string$/,
            ),
            caused_by: { type: 'illegal_argument_exception', reason: 'field name cannot be an empty string' },
          },
        });
        expect(await es().exists({ index: 'docs', id })).toBe(false);
      }
    });

    it('refuses an empty field name in a mapping', async () => {
      const create = await call(server.url, 'PUT', '/empty-names', {
        mappings: { properties: { '': { type: 'keyword' } } },
      });
      expect(create.status).toBe(400);
      expect(create.json).toMatchObject({
        error: {
          type: 'mapper_parsing_exception',
          reason: 'Failed to parse mapping: field name cannot be an empty string',
        },
      });
      const put = await call(server.url, 'PUT', '/target/_mapping', {
        properties: { o: { properties: { '': { type: 'long' } } } },
      });
      expect(put.status).toBe(400);
      expect(put.json).toMatchObject({
        error: { reason: expect.stringContaining('field name cannot be an empty string') },
      });
    });
  });

  describe('unknown keys', () => {
    it('answers ES parse_exception for an unknown key in a create index body', async () => {
      const response = await call(server.url, 'PUT', '/unknown-key', { setings: {} });
      expect(response.status).toBe(400);
      expect(response.json).toEqual({
        error: {
          root_cause: [{ type: 'parse_exception', reason: 'unknown key [setings] for create index' }],
          type: 'parse_exception',
          reason: 'unknown key [setings] for create index',
        },
        status: 400,
      });
    });
  });

  describe('reindex validation (reindex/20_validation.yml), before any index is resolved', () => {
    const reindex = (body: unknown, query = '') => call(server.url, 'POST', `/_reindex${query}`, body);
    const reasons = (json: unknown) => JSON.stringify(json);

    it('refuses a missing body and junk fields with "did you mean"', async () => {
      const none = await call(server.url, 'POST', '/_reindex');
      expect(none.status).toBe(400);
      expect(none.json).toMatchObject({
        error: { type: 'parse_exception', reason: 'request body or source parameter is required' },
      });
      const junk = await reindex({ junk: { more_junk: null } });
      expect(junk.status).toBe(400);
      expect(junk.json).toMatchObject({
        error: {
          type: 'x_content_parse_exception',
          reason: expect.stringMatching(/^\[\d+:\d+\] \[reindex\] unknown field \[junk\]$/),
        },
      });
      const typo = await reindex({ sorce: { index: 'docs' }, dest: { index: 'x' } });
      expect(typo.json).toMatchObject({
        error: {
          reason: expect.stringMatching(/\[reindex\] unknown field \[sorce\] did you mean \[source\]\?$/),
        },
      });
      const inSource = await reindex({ source: { junk: {} } });
      expect(inSource.status).toBe(400);
      expect(inSource.json).toMatchObject({
        error: {
          root_cause: [{ type: 'parsing_exception', reason: 'Unknown key for a START_OBJECT in [junk].' }],
          type: 'x_content_parse_exception',
          reason: expect.stringMatching(/\[reindex\] failed to parse field \[source\]$/),
        },
      });
      const inDest = await reindex({ dest: { version: 10 } });
      expect(inDest.json).toMatchObject({
        error: {
          root_cause: [
            {
              type: 'x_content_parse_exception',
              reason: expect.stringMatching(
                /\[dest\] unknown field \[version\] did you mean \[version_type\]\?$/,
              ),
            },
          ],
          reason: expect.stringMatching(/\[reindex\] failed to parse field \[dest\]$/),
        },
      });
      const opType = await reindex({ source: { index: 'docs' }, dest: { index: 'd', op_type: 'upsert' } });
      expect(reasons(opType.json)).toContain("opType must be 'create' or 'index', found: [upsert]");
    });

    it('refuses bad conflicts, max_docs and size with ES reasons', async () => {
      const conflicts = await reindex({ conflicts: 'cat' });
      expect(conflicts.status).toBe(400);
      expect(conflicts.json).toMatchObject({
        error: {
          root_cause: [
            {
              type: 'illegal_argument_exception',
              reason: 'conflicts may only be "proceed" or "abort" but was [cat]',
            },
          ],
        },
      });
      for (const body of [
        { source: { index: 'docs' }, dest: { index: 'd' }, size: -4 },
        { source: { index: 'docs' }, dest: { index: 'd' }, max_docs: -4 },
      ]) {
        expect(reasons((await reindex(body)).json)).toContain(
          '[max_docs] parameter cannot be negative, found [-4]',
        );
      }
      expect(
        reasons((await reindex({ source: { index: 'docs' }, dest: { index: 'd' } }, '?max_docs=-4')).json),
      ).toContain('[max_docs] parameter cannot be negative, found [-4]');
      expect(
        reasons(
          (await reindex({ source: { index: 'docs' }, dest: { index: 'd' }, size: 4, max_docs: 5 })).json,
        ),
      ).toContain('[max_docs] set to two different values [4] and [5]');
      expect(
        reasons(
          (await reindex({ source: { index: 'docs' }, dest: { index: 'd' }, max_docs: 4 }, '?max_docs=5'))
            .json,
        ),
      ).toContain('[max_docs] set to two different values [4] and [5]');
      const cat = await reindex({ source: { size: 'cat' }, dest: { index: 'd' } });
      expect(cat.json).toMatchObject({
        error: { root_cause: [{ type: 'number_format_exception', reason: 'For input string: "cat"' }] },
      });
    });

    it('lists ReindexRequest#validate errors together, before resolving any index', async () => {
      const nothing = await reindex({ dest: {} });
      expect(nothing.json).toMatchObject({
        error: {
          type: 'action_request_validation_exception',
          reason:
            'Validation Failed: 1: use _all if you really want to copy from all existing indexes;2: index must be specified;',
        },
      });
      const from = await reindex({
        source: { index: 'missing-index', from: 1, stored_fields: ['_id'], _source: false },
        dest: { index: 'd' },
      });
      expect(from.json).toMatchObject({
        error: {
          reason:
            'Validation Failed: 1: from is not supported in this context;2: stored_fields is not supported in this context;3: _source:false is not supported in this context;',
        },
      });
      expect(await es().indices.exists({ index: 'd' })).toBe(false);
    });

    it('refuses a destination that is one of the sources', async () => {
      const same = await reindex({ source: { index: 'docs' }, dest: { index: 'docs' } });
      expect(same.status).toBe(400);
      expect(same.json).toMatchObject({
        error: {
          type: 'action_request_validation_exception',
          reason: 'Validation Failed: 1: reindex cannot write into an index its reading from [docs];',
        },
      });
      const viaAlias = await reindex({ source: { index: 'target' }, dest: { index: 'target-alias' } });
      expect(viaAlias.json).toMatchObject({
        error: { reason: expect.stringContaining('its reading from [target]') },
      });
    });
  });
});
