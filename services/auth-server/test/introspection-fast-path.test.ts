import { basic, createResourceServer } from './support/oauth-helpers';
import { postTokenInfo, tokenInfoHeaders } from './support/post-token-info';
import { startIntrospectionServer } from './support/start-introspection-server';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';

/** POSTs a body chunked (no Content-Length): the express route answers it, not the lean path. */
async function postChunked(url: string, headers: Record<string, string>, body: string) {
  const answer = await postTokenInfo('express', url, headers, body);
  return { ...answer, body: JSON.parse(answer.text) as unknown };
}

describe('POST /token_info in front of express (the lean path) and through the express route', () => {
  let server: RunningAuthServer;
  let lines: Record<string, unknown>[];
  let rs: { id: string; secret: string; audience: string };
  let token: string;
  beforeAll(async () => {
    ({ server, rs, token, lines } = await startIntrospectionServer({ logLines: true }));
  });
  afterAll(async () => {
    await server.stop();
  });

  const form = () => tokenInfoHeaders(rs);

  it('answers a form post and the same post sent chunked with the same status, headers and body', async () => {
    const body = `token=${token}&token_type_hint=access_token`;
    const lean = await fetch(`${server.url}/token_info`, { method: 'POST', headers: form(), body });
    const routed = await postChunked(`${server.url}/token_info`, form(), body);
    expect(lean.status).toBe(200);
    expect(routed.status).toBe(200);
    expect(await lean.json()).toEqual(routed.body);
    expect(routed.body).toMatchObject({ active: true, scope: 'search.read' });
    for (const name of ['content-type', 'cache-control', 'pragma'])
      expect(lean.headers.get(name)).toBe(routed.headers[name]);
    expect(lean.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(lean.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['a duplicate token', 'token=a&token=b', 400, 'duplicate parameter: token'],
    ['a bracketed token (a flat key, not token)', 'token[]=a', 400, 'token is required'],
    ['no token', 'token_type_hint=access_token', 400, 'token is required'],
    ['over 1000 parameters', `${'a=1&'.repeat(1000)}token=x`, 400, 'request body too large'],
  ])('refuses %s alike on both paths', async (_what, body, status, description) => {
    const lean = await fetch(`${server.url}/token_info`, { method: 'POST', headers: form(), body });
    const routed = await postChunked(`${server.url}/token_info`, form(), body);
    const expected = { error: 'invalid_request', error_description: description };
    expect([lean.status, await lean.json()]).toEqual([status, expected]);
    expect([routed.status, routed.body]).toEqual([status, expected]);
    expect(lean.headers.get('cache-control')).toBe('no-store');
  });

  it('answers bad credentials with 401 invalid_client and the Basic challenge on the lean path', async () => {
    const response = await fetch(`${server.url}/token_info`, {
      method: 'POST',
      headers: { ...form(), authorization: basic(rs.id, 'wrong') },
      body: `token=${token}`,
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="token_info", charset="UTF-8"');
    expect(await response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'resource server authentication failed',
    });
  });

  it('echoes x-request-id, writes one access line and counts the call under route /token_info', async () => {
    const response = await fetch(`${server.url}/token_info`, {
      method: 'POST',
      headers: { ...form(), 'x-request-id': 'fast-path-1' },
      body: `token=${token}`,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('fast-path-1');
    await new Promise((resolve) => setImmediate(resolve));
    const access = lines.filter((line) => line.kind === 'access' && line.requestId === 'fast-path-1');
    expect(access).toEqual([expect.objectContaining({ method: 'POST', route: '/token_info', status: 200 })]);
    expect(JSON.stringify(access)).not.toContain(token);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_requests_total\{[^}]*method="POST"[^}]*route="\/token_info"[^}]*status="200"[^}]*\} \d+/,
    );
    expect(metrics).not.toMatch(/route="unmatched"[^}]*status="200"/);
  });
});

describe('POST /token_info behind a proxy (TRUST_PROXY) with INTROSPECTION_ALLOW_CIDRS', () => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string; audience: string };
  beforeAll(async () => {
    server = await startAuthServer({ TRUST_PROXY: 'true', INTROSPECTION_ALLOW_CIDRS: '10.0.0.0/8' });
    rs = await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each([
    ['allows a forwarded address inside the list', '10.1.2.3', 200],
    ['refuses a forwarded address outside it with access_denied', '192.0.2.1', 403],
  ])('%s', async (_what, forwarded, status) => {
    const response = await fetch(`${server.url}/token_info`, {
      method: 'POST',
      headers: {
        authorization: basic(rs.id, rs.secret),
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': forwarded,
      },
      body: 'token=unknown',
    });
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(
      status === 200
        ? { active: false }
        : { error: 'access_denied', error_description: 'introspection is not allowed from this address' },
    );
  });
});
