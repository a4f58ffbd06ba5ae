import { basic } from './support/oauth-helpers';
import {
  postTokenInfo,
  tokenInfoHeaders,
  type TokenInfoAnswer,
  type TokenInfoPath as Path,
} from './support/post-token-info';
import { startIntrospectionServer } from './support/start-introspection-server';
import type { RunningAuthServer } from './support/start-auth-server';

type Answer = TokenInfoAnswer & { body: unknown };

/** POST /token_info through the front or the express route (post-token-info.ts), its body parsed. */
async function post(path: Path, url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const answer = await postTokenInfo(path, url, headers, body);
  return { ...answer, body: JSON.parse(answer.text) as unknown };
}

/** Issue 19: the front route and the express route must behave alike; every case runs through both. */
describe.each<Path>(['front', 'express'])('POST /token_info through the %s path', (path) => {
  let server: RunningAuthServer;
  let lines: Record<string, unknown>[];
  let rs: { id: string; secret: string };
  let token: string;
  beforeAll(async () => {
    ({ server, rs, token, lines } = await startIntrospectionServer({ logLines: true }));
  });
  afterAll(async () => {
    await server.stop();
  });

  const form = (extra: Record<string, string> = {}) => tokenInfoHeaders(rs, extra);

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
