import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

describe('index APIs and cluster settings', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);

  it('creates an index with mappings, settings and aliases and shows it with GET', async () => {
    const created = await es().indices.create({
      index: 'books',
      settings: { number_of_replicas: 0, 'index.refresh_interval': '5s' },
      mappings: { dynamic: 'strict', properties: { title: { type: 'text' }, year: { type: 'short' } } },
      aliases: { library: {} },
    });
    expect(created).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'books' });
    expect(await es().indices.exists({ index: 'books' })).toBe(true);
    const got = await call(server.url, 'GET', '/books');
    const books = (
      got.json as Record<
        string,
        { aliases: unknown; mappings: unknown; settings: { index: Record<string, unknown> } }
      >
    ).books;
    expect(books?.aliases).toEqual({ library: {} });
    expect(books?.mappings).toEqual({
      dynamic: 'strict',
      properties: { title: { type: 'text' }, year: { type: 'short' } },
    });
    expect(books?.settings.index).toMatchObject({
      number_of_replicas: '0',
      number_of_shards: '1',
      refresh_interval: '5s',
      provided_name: 'books',
      uuid: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as string,
    });
  });

  it('refuses an existing name with resource_already_exists_exception and its uuid', async () => {
    await es().indices.create({ index: 'dup' });
    const { rows } = await server.pool.query<{ uuid: string }>("SELECT uuid FROM indices WHERE name = 'dup'");
    const uuid = rows[0]?.uuid;
    const { status, body } = await failure(es().indices.create({ index: 'dup' }));
    expect(status).toBe(400);
    const cause = {
      type: 'resource_already_exists_exception',
      reason: `index [dup/${uuid}] already exists`,
      index_uuid: uuid,
      index: 'dup',
    };
    expect(body).toEqual({ error: { root_cause: [cause], ...cause }, status: 400 });
  });

  it.each([
    ['UPPER', 'Invalid index name [UPPER], must be lowercase'],
    ['_under', "Invalid index name [_under], must not start with '_', '-', or '+'"],
    ['-dash', "Invalid index name [-dash], must not start with '_', '-', or '+'"],
    [
      'a*b',
      `Invalid index name [a*b], must not contain the following characters [' ','"','*',',','/','<','>','?','\\','|']`,
    ],
    ['has#hash', "Invalid index name [has#hash], must not contain '#'"],
    ['x'.repeat(256), `Invalid index name [${'x'.repeat(256)}], index name is too long, (256 > 255)`],
  ])('refuses the index name %s', async (name, reason) => {
    const response = await call(server.url, 'PUT', `/${encodeURIComponent(name)}`);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: { type: 'invalid_index_name_exception', reason, index: name, index_uuid: '_na_' },
    });
  });

  it('wraps a bad mapping as ES does: Failed to parse mapping, caused_by the inner error', async () => {
    const response = await call(server.url, 'PUT', '/badmap', {
      mappings: { properties: { bar: { type: 'foo' } } },
    });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: {
        root_cause: [
          { type: 'mapper_parsing_exception', reason: 'No handler for type [foo] declared on field [bar]' },
        ],
        type: 'mapper_parsing_exception',
        reason: 'Failed to parse mapping: No handler for type [foo] declared on field [bar]',
        caused_by: {
          type: 'mapper_parsing_exception',
          reason: 'No handler for type [foo] declared on field [bar]',
        },
      },
      status: 400,
    });
    expect((await call(server.url, 'HEAD', '/badmap')).status).toBe(404);
  });

  it('refuses an unknown setting', async () => {
    const response = await call(server.url, 'PUT', '/badsetting', { settings: { 'index.nope': 1 } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: expect.stringContaining('unknown setting [index.nope]') as string,
      },
    });
  });

  it('deletes a list of indices only when every concrete name exists', async () => {
    await es().indices.create({ index: 'del-a' });
    await es().indices.create({ index: 'del-b' });
    const missing = await failure(es().indices.delete({ index: 'del-a,del-b,del-c' }));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      error: { type: 'index_not_found_exception', reason: 'no such index [del-c]', 'resource.id': 'del-c' },
    });
    expect(await es().indices.exists({ index: 'del-a' })).toBe(true);
    expect(await es().indices.delete({ index: 'del-a,del-b' })).toEqual({ acknowledged: true });
    expect(await es().indices.exists({ index: 'del-a,del-b' })).toBe(false);
  });

  it('refuses to delete through an alias', async () => {
    const response = await call(server.url, 'DELETE', '/library');
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason:
          'The provided expression [library] matches an alias, specify the corresponding concrete indices instead.',
      },
    });
  });

  it('refuses wildcard and _all deletes until action.destructive_requires_name is false', async () => {
    await es().indices.create({ index: 'wild-1' });
    for (const path of ['/wild-*', '/_all', '/*']) {
      const refused = await call(server.url, 'DELETE', path);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        error: {
          type: 'illegal_argument_exception',
          reason: 'Wildcard expressions or all indices are not allowed',
        },
      });
    }
    const put = await call(server.url, 'PUT', '/_cluster/settings', {
      persistent: { 'action.destructive_requires_name': false },
    });
    expect(put.json).toEqual({
      acknowledged: true,
      persistent: { action: { destructive_requires_name: 'false' } },
      transient: {},
    });
    const stored = await server.pool.query(
      "SELECT value FROM cluster_settings WHERE key = 'action.destructive_requires_name'",
    );
    expect(stored.rows).toEqual([{ value: 'false' }]);
    expect((await call(server.url, 'GET', '/_cluster/settings?flat_settings=true')).json).toEqual({
      persistent: { 'action.destructive_requires_name': 'false' },
      transient: {},
    });
    expect((await call(server.url, 'DELETE', '/wild-*')).status).toBe(200);
    expect(await es().indices.exists({ index: 'wild-1' })).toBe(false);
    expect((await call(server.url, 'DELETE', '/nomatch-*')).json).toEqual({ acknowledged: true });
    await call(server.url, 'PUT', '/_cluster/settings', {
      persistent: { 'action.destructive_requires_name': null },
    });
    expect((await call(server.url, 'GET', '/_cluster/settings')).json).toEqual({
      persistent: {},
      transient: {},
    });
  });

  it('stops auto-creating indices when action.auto_create_index is false', async () => {
    await call(server.url, 'PUT', '/_cluster/settings', {
      persistent: { 'action.auto_create_index': false },
    });
    const refused = await call(server.url, 'PUT', '/not-created/_doc/1', { a: 1 });
    expect(refused.status).toBe(404);
    expect(refused.json).toMatchObject({
      error: {
        type: 'index_not_found_exception',
        reason: 'no such index [not-created] and [action.auto_create_index] is [false]',
      },
    });
    await call(server.url, 'PUT', '/_cluster/settings', { persistent: { 'action.auto_create_index': null } });
    expect((await call(server.url, 'PUT', '/not-created/_doc/1', { a: 1 })).status).toBe(201);
  });

  it('refuses an unknown cluster setting', async () => {
    const response = await call(server.url, 'PUT', '/_cluster/settings', {
      persistent: { 'no.such.setting': 1 },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'persistent setting [no.such.setting], not recognized',
      },
    });
  });

  it('acknowledges refresh on all indices and on one, and 404s a missing one', async () => {
    expect(await es().indices.refresh()).toMatchObject({ _shards: { failed: 0 } });
    expect(await es().indices.refresh({ index: 'books' })).toEqual({
      _shards: { total: 1, successful: 1, failed: 0 },
    });
    expect((await failure(es().indices.refresh({ index: 'no-such' }))).status).toBe(404);
  });

  it('expands wildcards and _all over visible indices only', async () => {
    await es().indices.create({ index: 'exp-one' });
    await es().indices.create({ index: 'exp-two' });
    await es().indices.create({ index: 'exp-hidden', settings: { 'index.hidden': true } });
    expect(Object.keys((await call(server.url, 'GET', '/exp-*')).json as object).sort()).toEqual([
      'exp-one',
      'exp-two',
    ]);
    expect(Object.keys((await call(server.url, 'GET', '/exp-*,-exp-two')).json as object)).toEqual([
      'exp-one',
    ]);
    expect(Object.keys((await call(server.url, 'GET', '/exp-hidden,exp-one')).json as object).sort()).toEqual(
      ['exp-hidden', 'exp-one'],
    );
    expect(Object.keys((await call(server.url, 'GET', '/_all')).json as object)).not.toContain('exp-hidden');
    expect((await call(server.url, 'GET', '/nomatch-*')).json).toEqual({});
  });

  it('answers GET on a missing index with index_not_found_exception and its extras', async () => {
    const response = await call(server.url, 'GET', '/no-such');
    const cause = {
      type: 'index_not_found_exception',
      reason: 'no such index [no-such]',
      'resource.type': 'index_or_alias',
      'resource.id': 'no-such',
      index_uuid: '_na_',
      index: 'no-such',
    };
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: { root_cause: [cause], ...cause }, status: 404 });
  });
});
