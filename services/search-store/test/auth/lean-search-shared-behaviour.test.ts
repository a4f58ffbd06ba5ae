import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import nock from 'nock';
import { createLogger } from '@acme/common';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { stubTokenScopes } from '../support/stub-token-scopes';
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
  const forwarded: string[] = [];
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const logger = createLogger({ service: 'search-store', level: 'info', stream });
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    const scopes = new Map([
      ['admin', 'search.read search.write search.admin'],
      ['reader', 'search.read'],
      ['writer', 'search.write'],
    ]);
    stubTokenScopes(AUTH, scopes, 'u');
    nock(AUTH)
      .post('/token')
      .reply(function () {
        forwarded.push(String(this.req.headers.forwarded));
        return [401, { error: 'invalid_client' }];
      })
      .persist();
    server = await startSearchStore({ AUTH_SERVER_URL: AUTH }, { auth: 'real', logger });
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

  /** What the client sees of an answer besides its body, and the same on both paths. */
  const headersOf = (answer: Answer) => ({
    'content-type': answer.headers['content-type'],
    'x-elastic-product': answer.headers['x-elastic-product'],
    'www-authenticate': answer.headers['www-authenticate'],
  });

  it('answers the hits with the Elasticsearch headers and echoes x-request-id and X-Opaque-Id', async () => {
    const answer = await search(
      path,
      url(),
      { ...bearer('reader'), 'x-request-id': `shared-${path}`, 'x-opaque-id': 'opaque-1' },
      '{"query":{"match":{"title":"dune"}}}',
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      hits: { total: { value: 1 }, hits: [expect.objectContaining({ _id: '1' })] },
    });
    expect(headersOf(answer)).toEqual({
      'content-type': 'application/json; charset=UTF-8',
      'x-elastic-product': 'Elasticsearch',
      'www-authenticate': undefined,
    });
    expect(answer.headers['x-request-id']).toBe(`shared-${path}`);
    expect(answer.headers['x-opaque-id']).toBe('opaque-1');
  });

  it('gives a new request id when none or a malformed one is sent, on errors too', async () => {
    for (const headers of [{}, { 'x-request-id': 'bad id;drop' }] as Record<string, string>[]) {
      const answer = await search(path, url(), headers, '{}');
      expect(answer.status).toBe(401);
      expect(answer.headers['x-request-id']).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
  });

  it('writes one access line and counts the call and its latency under route /:index/_search', async () => {
    /** http_requests_total and the latency histogram's count for successful POST /:index/_search. */
    const counted = async () => {
      const metrics = (await call(server.url, 'GET', '/metrics')).text;
      return ['http_requests_total', 'http_request_duration_seconds_count'].map((name) => {
        const line = new RegExp(
          `${name}\\{[^}]*method="POST"[^}]*route="/:index/_search"[^}]*status="200"[^}]*\\} (\\d+)`,
        ).exec(metrics);
        return Number(line?.[1] ?? 0);
      });
    };
    const id = `access-${path}`;
    const before = await counted();
    expect((await search(path, url(), { ...bearer('reader'), 'x-request-id': id }, '{}')).status).toBe(200);
    expect(await counted()).toEqual(before.map((n) => n + 1));
    const access = lines.filter((line) => line.kind === 'access' && line.requestId === id);
    expect(access).toEqual([
      expect.objectContaining({ method: 'POST', route: '/:index/_search', status: 200 }),
    ]);
  });

  it('writes the access line of a refused call under the route pattern too', async () => {
    const id = `refused-${path}`;
    expect((await search(path, url(), { ...bearer('writer'), 'x-request-id': id }, '{}')).status).toBe(403);
    await new Promise((resolve) => setImmediate(resolve));
    const access = lines.filter((line) => line.kind === 'access' && line.requestId === id);
    expect(access).toEqual([
      expect.objectContaining({ method: 'POST', route: '/:index/_search', status: 403 }),
    ]);
  });

  const missingCredentials = {
    status: 401,
    error: {
      root_cause: [
        {
          type: 'security_exception',
          reason: 'missing authentication credentials for REST request [/books/_search]',
          header: {
            'WWW-Authenticate': ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"'],
          },
        },
      ],
      type: 'security_exception',
      reason: 'missing authentication credentials for REST request [/books/_search]',
      header: { 'WWW-Authenticate': ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"'] },
    },
  };

  it('authenticates before reading the body: no credentials and a malformed body are a 401', async () => {
    const answer = await search(path, url(), {}, '{"query":');
    expect([answer.status, answer.json]).toEqual([401, missingCredentials]);
    expect(headersOf(answer)).toEqual({
      'content-type': 'application/json; charset=UTF-8',
      'x-elastic-product': 'Elasticsearch',
      'www-authenticate': 'Basic realm="security", charset="UTF-8", Bearer realm="security"',
    });
  });

  const forbidden = {
    status: 403,
    error: {
      root_cause: [
        {
          type: 'security_exception',
          reason:
            'action [indices:data/read/search] is unauthorized for user [u] with effective roles ' +
            '[search.write] on indices [books], this action is granted by the scope [search.read]',
        },
      ],
      type: 'security_exception',
      reason:
        'action [indices:data/read/search] is unauthorized for user [u] with effective roles ' +
        '[search.write] on indices [books], this action is granted by the scope [search.read]',
    },
  };

  it.each([
    ['an empty body', '{}'],
    ['a malformed body', '{"query":'],
  ])(
    'checks the route scope before reading the body: search.write alone with %s is a 403',
    async (_, body) => {
      const answer = await search(path, url(), bearer('writer'), body);
      expect([answer.status, answer.json]).toEqual([403, forbidden]);
      expect(headersOf(answer)).toEqual({
        'content-type': 'application/json; charset=UTF-8',
        'x-elastic-product': 'Elasticsearch',
        'www-authenticate': undefined,
      });
    },
  );

  it("relays the caller's address to auth-server with a service account's credentials", async () => {
    forwarded.length = 0;
    const basic = `Basic ${Buffer.from('svc:wrong').toString('base64')}`;
    const answer = await search(path, url(), { authorization: basic }, '{}');
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({
      error: { reason: 'unable to authenticate user [svc] for REST request [/books/_search]' },
    });
    expect(forwarded).toEqual(['for=127.0.0.1']);
  });

  it('answers a malformed body in the Elasticsearch envelope', async () => {
    const answer = await search(path, url(), bearer('reader'), '{"query":');
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      status: 400,
      error: { type: 'x_content_e_o_f_exception', reason: expect.stringMatching(/^\[1:10\]/) },
    });
    expect(headersOf(answer)).toEqual({
      'content-type': 'application/json; charset=UTF-8',
      'x-elastic-product': 'Elasticsearch',
      'www-authenticate': undefined,
    });
  });
});
