import { request } from 'node:http';
import nock from 'nock';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call } from '../support/http';

const AUTH = 'http://auth-server.test';
type Path = 'front' | 'express';
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/**
 * POST /<index>/_search with a Content-Length (the front route in api/lean-search.ts takes it) or
 * chunked (the front route declines it and the express route answers): same bytes, same headers.
 */
function search(path: Path, url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const base = { 'content-type': 'application/json', ...headers };
    const sent = path === 'front' ? { ...base, 'content-length': String(Buffer.byteLength(body)) } : base;
    const req = request(url, { method: 'POST', headers: sent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    if (path === 'express') req.write(body.slice(0, 1));
    req.end(path === 'express' ? body.slice(1) : body);
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Issue 19: the front route and the express route must behave alike; every case runs through both. */
describe.each<Path>(['front', 'express'])('POST /<index>/_search through the %s path', (path) => {
  let server: RunningSearchStore;
  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    const scopes = new Map([
      ['admin', 'search.read search.write search.admin'],
      ['reader', 'search.read'],
      ['writer', 'search.write'],
    ]);
    nock(AUTH)
      .post('/token_info')
      .reply((_uri, body) => {
        const scope = scopes.get(new URLSearchParams(String(body)).get('token') ?? '');
        const exp = Math.floor(Date.now() / 1000) + 600;
        return [200, scope === undefined ? { active: false } : { active: true, scope, username: 'u', exp }];
      })
      .persist();
    nock(AUTH).post('/token').reply(401, { error: 'invalid_client' }).persist();
    server = await startSearchStore({ AUTH_SERVER_URL: AUTH }, { auth: 'real' });
    expect((await call(server.url, 'PUT', '/books', {}, bearer('admin'))).status).toBe(200);
    const doc = { title: 'dune' };
    expect((await call(server.url, 'PUT', '/books/_doc/1?refresh=true', doc, bearer('admin'))).status).toBe(
      201,
    );
  });
  afterAll(async () => {
    await server.stop();
    nock.cleanAll();
    nock.enableNetConnect();
  });
  const url = () => `${server.url}/books/_search`;

  it('answers the hits with the Elasticsearch headers and echoes x-request-id', async () => {
    const answer = await search(
      path,
      url(),
      { ...bearer('reader'), 'x-request-id': `shared-${path}` },
      '{"query":{"match":{"title":"dune"}}}',
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      hits: { total: { value: 1 }, hits: [expect.objectContaining({ _id: '1' })] },
    });
    expect(answer.headers['x-request-id']).toBe(`shared-${path}`);
    expect(answer.headers['x-elastic-product']).toBe('Elasticsearch');
  });

  it('counts the call under route /:index/_search', async () => {
    const counted = async () => {
      const metrics = (await call(server.url, 'GET', '/metrics')).text;
      const line =
        /http_requests_total\{[^}]*method="POST"[^}]*route="\/:index\/_search"[^}]*status="200"[^}]*\} (\d+)/.exec(
          metrics,
        );
      return Number(line?.[1] ?? 0);
    };
    const before = await counted();
    expect((await search(path, url(), bearer('reader'), '{}')).status).toBe(200);
    expect(await counted()).toBe(before + 1);
  });

  it('authenticates before reading the body: no credentials and a malformed body are a 401', async () => {
    const answer = await search(path, url(), {}, '{"query":');
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ status: 401, error: { type: 'security_exception' } });
  });

  it('checks the route scope after authentication: search.write alone is a 403', async () => {
    const answer = await search(path, url(), bearer('writer'), '{}');
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ status: 403, error: { type: 'security_exception' } });
  });

  it('answers a malformed body in the Elasticsearch envelope', async () => {
    const answer = await search(path, url(), bearer('reader'), '{"query":');
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      status: 400,
      error: { type: expect.stringMatching(/parse|x_content/) },
    });
  });
});
