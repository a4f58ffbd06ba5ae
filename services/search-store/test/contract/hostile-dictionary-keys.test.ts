import { useSearchStore } from '../support/use-search-store';
import { call } from '../support/http';

/**
 * Issue 17, beyond documents and mappings: response filtering, aliases, highlight, `fields`, runtime
 * fields, analysis settings and cluster settings are keyed by user strings too. `__proto__`,
 * `constructor` and `toString` are ordinary names there in Elasticsearch. Bodies with `__proto__` are
 * sent as text: a JS object literal would set a prototype instead of a key.
 */
describe('user-keyed dictionaries with JavaScript prototype member names', () => {
  const server = useSearchStore();

  const firstHit = async (index: string, body: string): Promise<Record<string, unknown>> => {
    const response = await call(server.url, 'POST', `/${index}/_search`, body);
    expect(response.status).toBe(200);
    const hits = JSON.parse(response.text) as { hits: { hits: Record<string, unknown>[] } };
    expect(hits.hits.hits).toHaveLength(1);
    return hits.hits.hits[0]!;
  };

  it('keeps `__proto__` and `constructor` keys of `_source` through filter_path', async () => {
    const source = '{"__proto__":{"a":1},"constructor":"c","x":1}';
    expect((await call(server.url, 'PUT', '/fp/_doc/1?refresh=true', source)).status).toBe(201);

    const included = await call(server.url, 'GET', '/fp/_doc/1?filter_path=_source');
    expect(included.status).toBe(200);
    expect(included.text).toBe(`{"_source":${source}}`);

    const searched = await call(server.url, 'POST', '/fp/_search?filter_path=hits.hits._source.__proto__.a');
    expect(searched.text).toBe('{"hits":{"hits":[{"_source":{"__proto__":{"a":1}}}]}}');

    const excluded = await call(server.url, 'GET', '/fp/_doc/1?filter_path=-_source.x,-_id,-_index');
    const body = JSON.parse(excluded.text) as { _source: object };
    expect(Object.hasOwn(body._source, '__proto__')).toBe(true);
    expect(body._source).toEqual(JSON.parse('{"__proto__":{"a":1},"constructor":"c"}'));
  });

  it('creates, lists and resolves aliases named `constructor` and `toString`', async () => {
    const created = await call(server.url, 'PUT', '/aliased', '{"aliases":{"constructor":{}}}');
    expect(created.status).toBe(200);
    const put = await call(server.url, 'PUT', '/aliased/_alias/toString', '{"is_write_index":true}');
    expect(put.status).toBe(200);

    const all = await call(server.url, 'GET', '/aliased/_alias');
    expect(all.json).toEqual({
      aliased: { aliases: { constructor: {}, toString: { is_write_index: true } } },
    });
    const one = await call(server.url, 'GET', '/_alias/constructor');
    expect(one.status).toBe(200);
    expect(one.json).toEqual({ aliased: { aliases: { constructor: {} } } });
    const missing = await call(server.url, 'GET', '/_alias/hasOwnProperty');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: 'alias [hasOwnProperty] missing', status: 404 });

    expect((await call(server.url, 'PUT', '/toString/_doc/1?refresh=true', { n: 1 })).status).toBe(201);
    const viaAlias = await call(server.url, 'POST', '/constructor/_search');
    expect((viaAlias.json as { hits: { total: { value: number } } }).hits.total.value).toBe(1);
  });

  it('highlights and returns `fields` of fields named `constructor` and `__proto__`', async () => {
    const doc = '{"constructor":"quick fox","__proto__":"lazy dog"}';
    expect((await call(server.url, 'PUT', '/hl/_doc/1?refresh=true', doc)).status).toBe(201);

    const hit = await firstHit(
      'hl',
      '{"query":{"match":{"constructor":"quick"}},"highlight":{"fields":{"constructor":{}}},"fields":["constructor","__proto__"]}',
    );
    expect(hit.highlight).toEqual({ constructor: ['<em>quick</em> fox'] });
    expect(hit.fields).toEqual(JSON.parse('{"constructor":["quick fox"],"__proto__":["lazy dog"]}'));

    const proto = await firstHit(
      'hl',
      '{"query":{"match":{"__proto__":"lazy"}},"highlight":{"fields":{"__proto__":{}}},"_source":false}',
    );
    expect(proto.highlight).toEqual(JSON.parse('{"__proto__":["<em>lazy</em> dog"]}'));
    expect(Object.hasOwn(proto.highlight as object, '__proto__')).toBe(true);
  });

  it('returns runtime fields named `constructor` and `__proto__` under `fields`', async () => {
    expect((await call(server.url, 'PUT', '/rt/_doc/1?refresh=true', { n: 2 })).status).toBe(201);
    const hit = await firstHit(
      'rt',
      `{"runtime_mappings":{"constructor":{"type":"keyword","script":{"source":"emit('c')"}},` +
        `"__proto__":{"type":"long","script":{"source":"emit(doc['n'].value * 10)"}}},` +
        `"fields":["constructor","__proto__"],"_source":false}`,
    );
    expect(hit.fields).toEqual(JSON.parse('{"constructor":["c"],"__proto__":[20]}'));
    expect(Object.hasOwn(hit.fields as object, '__proto__')).toBe(true);
  });

  it('uses analyzers named `constructor`, `toString` and `__proto__` from index settings', async () => {
    const settings =
      '{"settings":{"analysis":{"analyzer":{' +
      '"constructor":{"type":"custom","tokenizer":"whitespace"},' +
      '"toString":{"type":"custom","tokenizer":"standard","filter":["lowercase"]},' +
      '"__proto__":{"type":"custom","tokenizer":"keyword"}}}},' +
      '"mappings":{"properties":{"t":{"type":"text","analyzer":"toString"}}}}';
    const created = await call(server.url, 'PUT', '/an', settings);
    expect(created.status).toBe(200);

    const tokens = async (analyzer: string): Promise<unknown> => {
      const body = `{"analyzer":"${analyzer}","text":"Quick Fox"}`;
      const response = await call(server.url, 'POST', '/an/_analyze', body);
      expect(response.status).toBe(200);
      return (response.json as { tokens: { token: string }[] }).tokens.map((t) => t.token);
    };
    expect(await tokens('constructor')).toEqual(['Quick', 'Fox']);
    expect(await tokens('toString')).toEqual(['quick', 'fox']);
    expect(await tokens('__proto__')).toEqual(['Quick Fox']);

    expect((await call(server.url, 'PUT', '/an/_doc/1?refresh=true', { t: 'Quick Fox' })).status).toBe(201);
    const hit = await firstHit('an', '{"query":{"match":{"t":"QUICK"}}}');
    expect(hit._id).toBe('1');

    const got = await call(server.url, 'GET', '/an/_settings');
    expect(got.status).toBe(200);
    const analysis = (JSON.parse(got.text) as { an: { settings: { index: { analysis: object } } } }).an
      .settings.index.analysis;
    expect(analysis).toEqual(
      JSON.parse(
        '{"analyzer":{"__proto__":{"tokenizer":"keyword","type":"custom"},"constructor":{"tokenizer":"whitespace","type":"custom"},"toString":{"filter":"lowercase","tokenizer":"standard","type":"custom"}}}',
      ),
    );
    expect(({} as Record<string, unknown>).tokenizer).toBeUndefined();
  });

  it('refuses undefined analyzers, tokenizers and filters named like prototype members with a 400', async () => {
    const cases: [string, string][] = [
      ['{"analyzer":"constructor","text":"a"}', 'failed to find global analyzer [constructor]'],
      ['{"analyzer":"toString","text":"a"}', 'failed to find global analyzer [toString]'],
      ['{"tokenizer":"constructor","text":"a"}', 'failed to find global tokenizer under [constructor]'],
      [
        '{"tokenizer":"standard","filter":["toString"],"text":"a"}',
        'failed to find global token filter under [toString]',
      ],
    ];
    for (const [body, reason] of cases) {
      const response = await call(server.url, 'POST', '/_analyze', body);
      expect({ body, status: response.status, json: response.json }).toMatchObject({
        body,
        status: 400,
        json: { error: { type: 'illegal_argument_exception', reason } },
      });
    }
    // An undefined analyzer in a mapping: no index accepts a document analysed with `Object`.
    await call(
      server.url,
      'PUT',
      '/bad-an',
      '{"mappings":{"properties":{"t":{"type":"text","analyzer":"constructor"}}}}',
    );
    const written = await call(server.url, 'PUT', '/bad-an/_doc/1', { t: 'a' });
    expect(written.status).toBe(400);
    expect(written.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason: 'failed to find analyzer [constructor]' },
    });
  });

  it('refuses cluster settings named `constructor` or `__proto__` as not recognized', async () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const response = await call(server.url, 'PUT', '/_cluster/settings', `{"persistent":{"${name}":"x"}}`);
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({
        error: { type: 'illegal_argument_exception', reason: `persistent setting [${name}], not recognized` },
      });
    }
  });
});
