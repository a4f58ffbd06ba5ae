import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

describe('alias APIs', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().indices.create({ index: 'logs-1' });
    await es().indices.create({ index: 'logs-2' });
    await es().indices.create({ index: 'plain' });
  });

  it('adds aliases and lists every index in GET /_aliases, including those without any', async () => {
    const added = await call(server.url, 'POST', '/_aliases', {
      actions: [
        { add: { index: 'logs-1', alias: 'logs' } },
        { add: { indices: ['logs-2'], aliases: ['logs', 'current'], is_write_index: true } },
      ],
    });
    expect(added.json).toEqual({ acknowledged: true, errors: false });
    expect((await call(server.url, 'GET', '/_aliases')).json).toEqual({
      'logs-1': { aliases: { logs: {} } },
      'logs-2': { aliases: { current: { is_write_index: true }, logs: { is_write_index: true } } },
      plain: { aliases: {} },
    });
    expect((await call(server.url, 'GET', '/logs-1/_alias')).json).toEqual({
      'logs-1': { aliases: { logs: {} } },
    });
    expect((await call(server.url, 'GET', '/_alias/current')).json).toEqual({
      'logs-2': { aliases: { current: { is_write_index: true } } },
    });
    expect(await es().indices.existsAlias({ name: 'logs' })).toBe(true);
  });

  it('answers a missing alias with 404 and ES bare error', async () => {
    const response = await call(server.url, 'GET', '/_alias/nope');
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: 'alias [nope] missing', status: 404 });
    expect(await es().indices.existsAlias({ name: 'nope' })).toBe(false);
  });

  it('writes through an alias to its write index and reads through a single-index alias', async () => {
    const written = await es().index({ index: 'logs', id: '1', document: { m: 'hi' } });
    expect(written._index).toBe('logs-2');
    await es().indices.updateAliases({ actions: [{ add: { index: 'plain', alias: 'only-plain' } }] });
    await es().index({ index: 'only-plain', id: '1', document: { p: 1 } });
    expect(await es().get({ index: 'only-plain', id: '1' })).toMatchObject({ _index: 'plain', found: true });
  });

  it('refuses a write through an alias without a write index', async () => {
    await es().indices.updateAliases({
      actions: [{ add: { indices: ['logs-1', 'plain'], alias: 'mixed' } }],
    });
    const response = await call(server.url, 'PUT', '/mixed/_doc/1', { a: 1 });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: expect.stringContaining('no write index is defined for alias [mixed]') as string,
      },
    });
  });

  it('removes an alias from every index with index "*"', async () => {
    await es().indices.updateAliases({ actions: [{ remove: { index: '*', alias: 'mixed' } }] });
    const { rows } = await server.pool.query("SELECT 1 FROM aliases WHERE alias = 'mixed'");
    expect(rows).toHaveLength(0);
  });

  it('refuses a missing alias with must_exist and reports it per action otherwise', async () => {
    const strict = await failure(
      es().indices.updateAliases({
        actions: [{ remove: { index: 'plain', alias: 'ghost', must_exist: true } }],
      }),
    );
    expect(strict.status).toBe(404);
    expect(strict.body).toMatchObject({
      error: { type: 'aliases_not_found_exception', reason: 'aliases [ghost] missing' },
    });
    const partial = await call(server.url, 'POST', '/_aliases', {
      actions: [{ add: { index: 'plain', alias: 'real' } }, { remove: { index: 'plain', alias: 'ghost' } }],
    });
    expect(partial.status).toBe(200);
    expect(partial.json).toEqual({
      acknowledged: true,
      errors: true,
      action_results: [
        { action: { type: 'add', indices: ['plain'], aliases: ['real'] }, status: 200 },
        {
          action: { type: 'remove', indices: ['plain'], aliases: ['ghost'] },
          status: 404,
          error: {
            type: 'aliases_not_found_exception',
            reason: 'aliases [ghost] missing',
            'resource.type': 'aliases',
            'resource.id': 'ghost',
          },
        },
      ],
    });
  });

  it('refuses an alias named like an index, an add to a missing index and must_exist on add', async () => {
    const clash = await call(server.url, 'POST', '/_aliases', {
      actions: [{ add: { index: 'plain', alias: 'logs-1' } }],
    });
    expect(clash.status).toBe(400);
    expect(clash.json).toMatchObject({ error: { type: 'invalid_alias_name_exception' } });
    const missing = await call(server.url, 'POST', '/_aliases', {
      actions: [{ add: { index: 'no-such', alias: 'x' } }],
    });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: { type: 'index_not_found_exception' } });
    const mustExist = await call(server.url, 'POST', '/_aliases', {
      actions: [{ add: { index: 'plain', alias: 'x', must_exist: true } }],
    });
    expect(mustExist.status).toBe(400);
    const { rows } = await server.pool.query("SELECT 1 FROM aliases WHERE alias = 'x'");
    expect(rows).toHaveLength(0);
  });

  it('puts and deletes a single alias by path, 404 when it is missing', async () => {
    expect((await call(server.url, 'PUT', '/plain/_alias/by-path', { is_write_index: true })).json).toEqual({
      acknowledged: true,
    });
    expect((await call(server.url, 'GET', '/plain/_alias/by-path')).json).toEqual({
      plain: { aliases: { 'by-path': { is_write_index: true } } },
    });
    expect((await call(server.url, 'DELETE', '/plain/_alias/by-path')).json).toEqual({ acknowledged: true });
    const again = await call(server.url, 'DELETE', '/plain/_alias/by-path');
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({
      error: { type: 'aliases_not_found_exception', reason: 'aliases [by-path] missing' },
    });
  });

  it('deletes an index with remove_index, atomically with the other actions', async () => {
    await es().indices.create({ index: 'old-one' });
    await es().indices.updateAliases({
      actions: [{ add: { index: 'plain', alias: 'old-one-alias' } }, { remove_index: { index: 'old-one' } }],
    });
    expect(await es().indices.exists({ index: 'old-one' })).toBe(false);
    expect(await es().indices.existsAlias({ name: 'old-one-alias' })).toBe(true);
  });
});
