import { useSearchStore } from '../support/use-search-store';
import { call } from '../support/http';

/**
 * Field names that are also Object.prototype members are ordinary field names in Elasticsearch. Issue
 * 17: `{"__proto__": {...}}` once polluted Object.prototype and took the process down; `constructor`
 * was refused. Bodies are sent as text: a JS object literal with `__proto__` would set a prototype.
 */
describe('field names that are JavaScript prototype members', () => {
  const server = useSearchStore();

  const ids = async (index: string, query: unknown): Promise<unknown> => {
    const response = await call(server.url, 'POST', `/${index}/_search`, JSON.stringify({ query }));
    expect(response.status).toBe(200);
    return (response.json as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id);
  };

  it('indexes {"__proto__": {...}} with 201, pollutes nothing and keeps answering', async () => {
    const created = await call(server.url, 'POST', '/dyn/_doc/2', '{"__proto__":{"polluted":"yes"},"a":1}');
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ _id: '2', result: 'created' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).properties).toBeUndefined();
    const got = await call(server.url, 'GET', '/dyn/_doc/2');
    expect(got.status).toBe(200);
    expect(JSON.parse(got.text)).toMatchObject({ found: true });
    expect((await call(server.url, 'GET', '/')).status).toBe(200);
    const other = await call(server.url, 'PUT', '/dyn-other/_doc/1', { plain: 'doc' });
    expect(other.status).toBe(201);
  });

  it('stores, maps, returns and searches `constructor`, `__proto__`, `toString` and `prototype`', async () => {
    const source = '{"constructor":"x","toString":1,"__proto__":{"a":1},"prototype":"proto value"}';
    const created = await call(server.url, 'PUT', '/names/_doc/1?refresh=true', source);
    expect(created.status).toBe(201);

    const got = await call(server.url, 'GET', '/names/_doc/1');
    expect(got.text).toContain(`"_source":${source}`);
    const filtered = await call(server.url, 'GET', '/names/_doc/1?_source_includes=__proto__.a,constructor');
    expect(filtered.text).toContain('"_source":{"constructor":"x","__proto__":{"a":1}}');

    const mapping = await call(server.url, 'GET', '/names/_mapping');
    expect(mapping.status).toBe(200);
    const properties =
      '"properties":{"__proto__":{"properties":{"a":{"type":"long"}}},"constructor":{"type":"text"';
    expect(mapping.text).toContain(properties);
    expect(mapping.text).toContain('"prototype":{"type":"text"');
    expect(mapping.text).toContain('"toString":{"type":"long"}');

    expect(await ids('names', { match: { constructor: 'x' } })).toEqual(['1']);
    expect(await ids('names', { term: { 'constructor.keyword': 'x' } })).toEqual(['1']);
    expect(await ids('names', { term: { toString: 1 } })).toEqual(['1']);
    expect(await ids('names', { term: { '__proto__.a': 1 } })).toEqual(['1']);
    expect(await ids('names', { match: { prototype: 'proto' } })).toEqual(['1']);
  });

  it('accepts those names in an explicit mapping and merges them on PUT _mapping', async () => {
    const body =
      '{"mappings":{"properties":{"constructor":{"type":"keyword"},"__proto__":{"properties":{"b":{"type":"long"}}}}}}';
    expect((await call(server.url, 'PUT', '/explicit', body)).status).toBe(200);
    const update =
      '{"properties":{"toString":{"type":"keyword"},"__proto__":{"properties":{"c":{"type":"keyword"}}}}}';
    expect((await call(server.url, 'PUT', '/explicit/_mapping', update)).status).toBe(200);
    const mapping = await call(server.url, 'GET', '/explicit/_mapping');
    expect(JSON.parse(mapping.text)).toEqual(
      JSON.parse(
        '{"explicit":{"mappings":{"properties":{"__proto__":{"properties":{"b":{"type":"long"},"c":{"type":"keyword"}}},"constructor":{"type":"keyword"},"toString":{"type":"keyword"}}}}}',
      ),
    );
    const indexed = await call(
      server.url,
      'PUT',
      '/explicit/_doc/1?refresh=true',
      '{"constructor":"k","__proto__":{"b":5}}',
    );
    expect(indexed.status).toBe(201);
    expect(await ids('explicit', { term: { constructor: 'k' } })).toEqual(['1']);
    expect(await ids('explicit', { range: { '__proto__.b': { gte: 5 } } })).toEqual(['1']);
    const conflict = await call(
      server.url,
      'PUT',
      '/explicit/_mapping',
      '{"properties":{"constructor":{"type":"long"}}}',
    );
    expect(conflict.status).toBe(400);
    expect(conflict.json).toMatchObject({
      error: { reason: 'mapper [constructor] cannot be changed from type [keyword] to [long]' },
    });
  });

  it('merges a partial doc with those names through _update', async () => {
    await call(server.url, 'PUT', '/merged/_doc/1', '{"constructor":"a"}');
    const updated = await call(
      server.url,
      'POST',
      '/merged/_update/1',
      '{"doc":{"__proto__":{"z":1},"toString":"t"}}',
    );
    expect(updated.status).toBe(200);
    const source = await call(server.url, 'GET', '/merged/_source/1');
    expect(JSON.parse(source.text)).toEqual(
      JSON.parse('{"constructor":"a","__proto__":{"z":1},"toString":"t"}'),
    );
    expect(Object.hasOwn(JSON.parse(source.text) as object, '__proto__')).toBe(true);
  });

  it('writes ctx._source["__proto__"] from an update script as an ordinary field', async () => {
    await call(server.url, 'PUT', '/scripted/_doc/1', { n: 1 });
    const updated = await call(server.url, 'POST', '/scripted/_update/1?refresh=true', {
      script: { source: "ctx._source['__proto__'] = ['polluted': 'yes']; ctx._source['constructor'] = 'c'" },
    });
    expect(updated.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const source = await call(server.url, 'GET', '/scripted/_source/1');
    expect(source.text).toBe('{"n":1,"__proto__":{"polluted":"yes"},"constructor":"c"}');
    expect(await ids('scripted', { term: { '__proto__.polluted.keyword': 'yes' } })).toEqual(['1']);
    expect((await call(server.url, 'GET', '/')).status).toBe(200);
  });

  it('refuses Math.toString and other prototype members in a script with a script_exception', async () => {
    await call(server.url, 'PUT', '/scripted/_doc/2', { n: 1 });
    for (const call_ of ['Math.toString(1)', 'Math.constructor(1)', 'Math.valueOf(1)', "'s'.constructor()"]) {
      const refused = await call(server.url, 'POST', '/scripted/_update/2', {
        script: { source: `ctx._source.n = ${call_}` },
      });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        error: {
          type: 'illegal_argument_exception',
          reason: 'failed to execute script',
          caused_by: { type: 'script_exception', caused_by: { type: 'illegal_argument_exception' } },
        },
      });
    }
    expect((await call(server.url, 'GET', '/scripted/_source/2')).text).toBe('{"n":1}');
    // A member of a map is a key lookup: a missing `constructor` key reads as null (Painless's map shortcut).
    const read = await call(server.url, 'POST', '/scripted/_update/2', {
      script: { source: 'ctx._source.m = ctx._source.constructor == null' },
    });
    expect(read.status).toBe(200);
    expect((await call(server.url, 'GET', '/scripted/_source/2')).text).toBe('{"n":1,"m":true}');
  });
});
