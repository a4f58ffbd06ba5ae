import { useSearchStore } from '../support/use-search-store';
import { call, client8, client9 } from '../support/http';

describe('HTTP plumbing and GET /', () => {
  const server = useSearchStore({ MAX_REQUEST_BYTES: '4096' });

  it('answers GET / with the info body clients check, and the product header', async () => {
    const response = await call(server.url, 'GET', '/');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    const { rows } = await server.pool.query<{ cluster_uuid: string }>(
      'SELECT cluster_uuid FROM search_instance',
    );
    expect(response.json).toEqual({
      name: 'node-1',
      cluster_name: 'search-store',
      cluster_uuid: Buffer.from((rows[0]?.cluster_uuid ?? '').replace(/-/g, ''), 'hex').toString('base64url'),
      version: expect.objectContaining({
        number: expect.stringMatching(/^8\./) as string,
        build_flavor: 'default',
        build_snapshot: false,
      }) as object,
      tagline: 'You Know, for Search',
    });
  });

  it('answers HEAD / with 200, no body and the product header', async () => {
    const response = await call(server.url, 'HEAD', '/');
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(response.headers.get('x-elastic-product')).toBe('Elasticsearch');
  });

  it('works with the official v8 and v9 clients (vendor media types, product check)', async () => {
    const info8 = await client8(server.url).info();
    expect(info8.tagline).toBe('You Know, for Search');
    expect(await client9(server.url).ping()).toBe(true);
    expect(await client8(server.url).indices.exists({ index: 'nothing-here' })).toBe(false);
  });

  it('puts the product header on errors and on HEAD 404s', async () => {
    const missing = await call(server.url, 'GET', '/nothing-here/_doc/1');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-elastic-product')).toBe('Elasticsearch');
    const head = await call(server.url, 'HEAD', '/nothing-here');
    expect(head.status).toBe(404);
    expect(head.headers.get('x-elastic-product')).toBe('Elasticsearch');
  });

  it('accepts the vendor JSON type with compatible-with 7, 8 and 9', async () => {
    for (const version of ['7', '8', '9']) {
      const response = await call(
        server.url,
        'PUT',
        `/vendor-${version}`,
        { settings: {} },
        {
          'content-type': `application/vnd.elasticsearch+json; compatible-with=${version}`,
        },
      );
      expect(response.status).toBe(200);
    }
  });

  it('refuses a malformed compatible-with and an unsupported content type', async () => {
    const bad = await call(
      server.url,
      'PUT',
      '/vendor-x',
      {},
      { 'content-type': 'application/vnd.elasticsearch+json; compatible-with=5' },
    );
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { type: string } }).error.type).toBe('media_type_header_exception');
    const text = await call(server.url, 'PUT', '/vendor-y', 'hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(406);
  });

  it('ignores the Content-Type of a request without a body', async () => {
    const response = await call(server.url, 'GET', '/', undefined, { 'content-type': 'text/plain' });
    expect(response.status).toBe(200);
  });

  it('answers malformed JSON with 400 x_content_parse_exception in the envelope', async () => {
    const response = await call(server.url, 'PUT', '/badjson', '{"settings": {,}}');
    expect(response.status).toBe(400);
    const body = response.json as {
      error: { type: string; reason: string; root_cause: unknown[] };
      status: number;
    };
    expect(body.status).toBe(400);
    expect(body.error.type).toBe('x_content_parse_exception');
    expect(body.error.reason).toMatch(/^\[1:\d+\] /);
    expect(body.error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason: body.error.reason }]);
  });

  it('answers a truncated JSON body with 400 x_content_e_o_f_exception (ES ≥ 8.15)', async () => {
    const response = await call(server.url, 'PUT', '/truncated', '{"settings": {"number_of_replicas": 0}');
    expect(response.status).toBe(400);
    expect((response.json as { error: { type: string } }).error.type).toBe('x_content_e_o_f_exception');
  });

  it('answers a body over MAX_REQUEST_BYTES with 413 in the envelope and creates nothing', async () => {
    const big = { mappings: { _meta: { pad: 'x'.repeat(5000) } } };
    const response = await call(server.url, 'PUT', '/too-big', big);
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ error: { type: 'content_too_long_exception' }, status: 413 });
    expect((await call(server.url, 'HEAD', '/too-big')).status).toBe(404);
  });

  it('pretty-prints with ?pretty as Elasticsearch does, errors included', async () => {
    await call(server.url, 'PUT', '/pretty/_doc/1', { a: [1, 2], o: {} });
    const response = await call(server.url, 'GET', '/pretty/_doc/1?pretty&_source=false');
    expect(response.text).toBe(
      '{\n  "_index" : "pretty",\n  "_id" : "1",\n  "_version" : 1,\n  "_seq_no" : 0,\n  "_primary_term" : 1,\n  "found" : true\n}\n',
    );
    const source = await call(server.url, 'GET', '/pretty/_source/1?pretty');
    expect(source.text).toBe('{\n  "a" : [\n    1,\n    2\n  ],\n  "o" : { }\n}\n');
    const error = await call(server.url, 'GET', '/nothing-here/_doc/1?pretty');
    expect(error.text).toContain('\n  "status" : 404\n}\n');
  });

  it('filters responses with filter_path and adds stack_trace with error_trace', async () => {
    const filtered = await call(server.url, 'GET', '/?filter_path=version.number,tagline');
    expect(filtered.json).toEqual({
      version: { number: expect.any(String) as string },
      tagline: 'You Know, for Search',
    });
    const traced = await call(server.url, 'GET', '/nothing-here/_doc/1?error_trace=true');
    expect((traced.json as { error: { stack_trace?: string } }).error.stack_trace).toContain(
      'index_not_found_exception',
    );
    const plain = await call(server.url, 'GET', '/nothing-here/_doc/1');
    expect((plain.json as { error: { stack_trace?: string } }).error.stack_trace).toBeUndefined();
  });

  it('takes the body from ?source with source_content_type', async () => {
    const source = encodeURIComponent(JSON.stringify({ settings: { number_of_replicas: 0 } }));
    const response = await call(
      server.url,
      'PUT',
      `/from-query?source=${source}&source_content_type=application/json`,
    );
    expect(response.status).toBe(200);
    const settings = await call(server.url, 'GET', '/from-query/_settings?flat_settings');
    expect(settings.json).toMatchObject({ 'from-query': { settings: { 'index.number_of_replicas': '0' } } });
  });

  it('echoes X-Opaque-Id', async () => {
    const response = await call(server.url, 'GET', '/', undefined, { 'x-opaque-id': 'trace-42' });
    expect(response.headers.get('x-opaque-id')).toBe('trace-42');
  });

  it('answers an unknown endpoint as Elasticsearch does', async () => {
    const response = await call(server.url, 'GET', '/_nope');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: 'no handler found for uri [/_nope] and method [GET]',
      status: 400,
    });
  });
});
