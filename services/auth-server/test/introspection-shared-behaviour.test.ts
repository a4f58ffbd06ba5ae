import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import { createLogger } from '@acme/common';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, postForm } from './support/oauth-helpers';

type Path = 'front' | 'express';
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * POST /token_info with a Content-Length (the front route in introspection-fast-path.ts takes it) or
 * chunked (the front route declines it and the express route answers): same bytes, same headers.
 */
function post(path: Path, url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent =
      path === 'front' ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers;
    const req = request(url, { method: 'POST', headers: sent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    if (path === 'express') req.write(body.slice(0, 1));
    req.end(path === 'express' ? body.slice(1) : body);
  });
}

/** Issue 19: the front route and the express route must behave alike; every case runs through both. */
describe.each<Path>(['front', 'express'])('POST /token_info through the %s path', (path) => {
  let server: RunningAuthServer;
  let lines: Record<string, unknown>[];
  let rs: { id: string; secret: string };
  let token: string;
  beforeAll(async () => {
    const stream = new PassThrough();
    lines = [];
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    server = await startAuthServer(
      {},
      { logger: createLogger({ service: 'auth-server', level: 'info', stream }) },
    );
    const client = await createClient(server);
    rs = await createResourceServer(server, ['search.read']);
    const issued = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      { authorization: basic(client.clientId, client.secret!) },
    );
    token = issued.body.access_token as string;
  });
  afterAll(async () => {
    await server.stop();
  });

  const form = (extra: Record<string, string> = {}) => ({
    authorization: basic(rs.id, rs.secret),
    'content-type': 'application/x-www-form-urlencoded',
    ...extra,
  });

  it('answers an active token with the introspection body and no-store', async () => {
    const answer = await post(path, `${server.url}/token_info`, form(), `token=${token}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ active: true, scope: 'search.read' });
    expect(errorHeaders(answer)).toEqual(NO_STORE_JSON);
  });

  /** http_requests_total for successful POST /token_info calls, from the /metrics page. */
  const counted = async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const line =
      /http_requests_total\{[^}]*method="POST"[^}]*route="\/token_info"[^}]*status="200"[^}]*\} (\d+)/.exec(
        metrics,
      );
    return Number(line?.[1] ?? 0);
  };

  it('echoes x-request-id, writes one access line and counts the call under route /token_info', async () => {
    const id = `shared-${path}`;
    const before = await counted();
    const answer = await post(
      path,
      `${server.url}/token_info`,
      form({ 'x-request-id': id }),
      `token=${token}`,
    );
    expect([answer.status, answer.headers['x-request-id']]).toEqual([200, id]);
    await new Promise((resolve) => setImmediate(resolve));
    const access = lines.filter((line) => line.kind === 'access' && line.requestId === id);
    expect(access).toEqual([expect.objectContaining({ method: 'POST', route: '/token_info', status: 200 })]);
    expect(await counted()).toBe(before + 1);
  });

  it('gives a new request id when none or a malformed one is sent', async () => {
    for (const extra of [{}, { 'x-request-id': 'bad id;drop' }] as Record<string, string>[]) {
      const answer = await post(path, `${server.url}/token_info`, form(extra), `token=${token}`);
      expect(answer.status).toBe(200);
      expect(answer.headers['x-request-id']).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
  });

  /** What the client sees of an error besides its body: the same on both paths. */
  const errorHeaders = (answer: Answer) => ({
    'content-type': answer.headers['content-type'],
    'cache-control': answer.headers['cache-control'],
    pragma: answer.headers.pragma,
  });
  const NO_STORE_JSON = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };

  it('checks the client before the body: bad credentials and a malformed body are a 401', async () => {
    const answer = await post(
      path,
      `${server.url}/token_info`,
      form({ authorization: basic(rs.id, 'wrong') }),
      'token=a&token=b',
    );
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Basic realm="token_info", charset="UTF-8"');
    expect(answer.body).toEqual({
      error: 'invalid_client',
      error_description: 'resource server authentication failed',
    });
    expect(errorHeaders(answer)).toEqual(NO_STORE_JSON);
  });

  it('answers no credentials with invalid_client and the Basic challenge', async () => {
    const { authorization: _, ...anonymous } = form();
    const answer = await post(path, `${server.url}/token_info`, anonymous, `token=${token}`);
    expect([answer.status, answer.body]).toEqual([
      401,
      { error: 'invalid_client', error_description: 'resource server authentication failed' },
    ]);
    expect(answer.headers['www-authenticate']).toBe('Basic realm="token_info", charset="UTF-8"');
    expect(errorHeaders(answer)).toEqual(NO_STORE_JSON);
  });

  it('refuses more than 1000 parameters as body-parser does, with the introspection headers', async () => {
    const body = Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&');
    const answer = await post(path, `${server.url}/token_info`, form(), body);
    // body-parser's 413 becomes invalid_request, whose status is 400 (RFC 6749 §5.2).
    expect([answer.status, answer.body]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'request body too large' },
    ]);
    expect(errorHeaders(answer)).toEqual(NO_STORE_JSON);
  });

  it('answers a malformed body in the OAuth envelope', async () => {
    const answer = await post(path, `${server.url}/token_info`, form(), 'token=a&token=b');
    expect([answer.status, answer.body]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'duplicate parameter: token' },
    ]);
    expect(errorHeaders(answer)).toEqual(NO_STORE_JSON);
  });
});
