import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

/** ES alias APIs by path (yaml: indices.put_alias, indices.delete_alias, indices.exists_alias). */
describe('alias paths: put, delete, exists; filter, routing, is_hidden', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().indices.create({
      index: 'test_index',
      mappings: { properties: { tag: { type: 'keyword' } } },
    });
    await es().indices.create({ index: 'foo' });
  });

  it('answers HEAD /_alias/{name} and /{index}/_alias/{name} with 200 or 404', async () => {
    expect(await es().indices.existsAlias({ name: 'test_alias' })).toBe(false);
    await es().indices.putAlias({ index: 'test_index', name: 'test_alias' });
    expect(await es().indices.existsAlias({ name: 'test_alias' })).toBe(true);
    expect(await es().indices.existsAlias({ index: 'test_index', name: 'test_alias' })).toBe(true);
    expect(await es().indices.existsAlias({ index: 'foo', name: 'test_alias' })).toBe(false);
    expect(await es().indices.existsAlias({ name: 'test_*' })).toBe(true);
    const head = await call(server.url, 'HEAD', '/test_index/_alias/test_alias');
    expect([head.status, head.text]).toEqual([200, '']);
    expect((await call(server.url, 'HEAD', '/nope/_alias/test_alias')).status).toBe(404);
    expect((await call(server.url, 'HEAD', '/_alias/test_alias?local=true')).status).toBe(200);
    expect((await call(server.url, 'HEAD', '/_alias/test_alias?nonsense=1')).status).toBe(400);
    expect(await es().indices.getAlias({ name: 'test_alias' })).toEqual({
      test_index: { aliases: { test_alias: {} } },
    });
  });

  it('stores routing, filter and is_write_index from the body, by _alias and _aliases paths', async () => {
    await call(server.url, 'PUT', '/test_index/_aliases/routed', { routing: 'routing value' });
    expect(await es().indices.getAlias({ name: 'routed' })).toEqual({
      test_index: {
        aliases: { routed: { index_routing: 'routing value', search_routing: 'routing value' } },
      },
    });
    await call(server.url, 'POST', '/test_index/_alias/filtered', {
      filter: { term: { tag: 'a' } },
      is_write_index: true,
    });
    expect(await es().indices.getAlias({ index: 'test_index', name: 'filtered' })).toEqual({
      test_index: { aliases: { filtered: { filter: { term: { tag: 'a' } }, is_write_index: true } } },
    });
    expect((await call(server.url, 'DELETE', '/test_index/_aliases/routed')).json).toEqual({
      acknowledged: true,
    });
    expect((await call(server.url, 'DELETE', '/test_index/_alias/filtered')).json).toEqual({
      acknowledged: true,
    });
    const gone = await call(server.url, 'GET', '/test_index/_alias/routed');
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ error: 'alias [routed] missing', status: 404 });
  });

  it('refuses invalid names, names of indices, bad filters and several index routing values', async () => {
    const star = await failure(es().indices.putAlias({ index: 'test_index', name: 'test_*' }));
    expect(star.status).toBe(400);
    expect(star.body).toMatchObject({ error: { type: 'invalid_alias_name_exception' } });
    const taken = await failure(es().indices.putAlias({ index: 'test_index', name: 'foo' }));
    expect(taken.body).toMatchObject({ error: { type: 'invalid_alias_name_exception' } });
    const filter = await call(server.url, 'PUT', '/test_index/_alias/bad', { filter: { no_such_query: {} } });
    expect(filter.status).toBe(400);
    expect(filter.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'failed to parse filter for alias [bad]',
        caused_by: { type: 'parsing_exception' },
      },
    });
    const routing = await call(server.url, 'PUT', '/test_index/_alias/bad', { index_routing: '1,2' });
    expect(routing.status).toBe(400);
    expect(routing.json).toMatchObject({
      error: { reason: 'alias [bad] has several index routing values associated with it' },
    });
    expect(await es().indices.existsAlias({ name: 'bad' })).toBe(false);
    const missing = await call(server.url, 'DELETE', '/test_index/_alias/never');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: { type: 'aliases_not_found_exception', reason: 'aliases [never] missing' },
    });
    expect((await call(server.url, 'PUT', '/nope/_alias/x')).status).toBe(404);
  });

  it('keeps is_hidden, hides the alias from wildcards and requires it on every index', async () => {
    await es().indices.create({ index: 'h1' });
    await es().indices.create({ index: 'h2' });
    await es().index({ index: 'h1', id: '1', document: { a: 1 }, refresh: true });
    // The v8 client sends is_hidden as a URL parameter: the body is what ES reads.
    await call(server.url, 'PUT', '/h1/_alias/secret', { is_hidden: true });
    expect(await es().indices.getAlias({ name: 'secret' })).toEqual({
      h1: { aliases: { secret: { is_hidden: true } } },
    });
    // By name the alias is searched; a wildcard over aliases skips it unless hidden ones are asked for.
    expect((await es().search({ index: 'secret' })).hits.hits.map((h) => h._id)).toEqual(['1']);
    expect((await es().search({ index: 'secr*' })).hits.hits).toEqual([]);
    expect(Object.keys(await es().indices.get({ index: 'secr*' }))).toEqual([]);
    expect(Object.keys(await es().indices.get({ index: 'secr*', expand_wildcards: 'all' }))).toEqual(['h1']);
    const mixed = await call(server.url, 'PUT', '/h2/_alias/secret');
    expect(mixed.status).toBe(500);
    expect(mixed.json).toMatchObject({
      error: {
        type: 'illegal_state_exception',
        reason:
          'alias [secret] has is_hidden set to true on indices [h1] but does not have is_hidden set to true on indices [h2]; alias must have the same is_hidden setting on all indices',
      },
    });
    await call(server.url, 'PUT', '/h2/_alias/secret', { is_hidden: true });
    expect(Object.keys(await es().indices.getAlias({ name: 'secret' }))).toEqual(['h1', 'h2']);
  });

  it('puts and removes aliases of closed indices', async () => {
    await es().indices.create({ index: 'shut' });
    await es().indices.close({ index: 'shut' });
    await es().indices.putAlias({ index: 'shut', name: 'shut-alias' });
    expect(await es().indices.existsAlias({ index: 'shut', name: 'shut-alias' })).toBe(true);
    await es().indices.deleteAlias({ index: 'shut', name: 'shut-alias' });
    expect(await es().indices.existsAlias({ name: 'shut-alias' })).toBe(false);
  });
});
