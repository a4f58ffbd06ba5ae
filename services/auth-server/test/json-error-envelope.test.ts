import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';

/**
 * Every answer of auth-server's JSON side is the OAuth envelope `{error, error_description}` with a JSON
 * content type, never express's HTML page: an unknown path or method, /register while dynamic registration
 * (RFC 7591) is off, and malformed bodies. Over HTTP on real Postgres.
 */
describe('JSON error envelope on every protocol route', () => {
  let server: RunningAuthServer;
  let withRegistration: RunningAuthServer;

  const call = async (base: RunningAuthServer, method: string, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base.url}${path}`, { method, ...init });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      text,
      headers: response.headers,
    };
  };
  const expectEnvelope = (answer: Awaited<ReturnType<typeof call>>, status: number, error: string) => {
    expect({ status: answer.status, type: answer.type }).toEqual({
      status,
      type: expect.stringMatching(/^application\/json/),
    });
    expect(answer.text).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
    expect(JSON.parse(answer.text)).toEqual({ error, error_description: expect.any(String) });
  };

  beforeAll(async () => {
    server = await startAuthServer();
    withRegistration = await startAuthServer({ DYNAMIC_REGISTRATION_ENABLED: 'true' });
  });
  afterAll(async () => {
    await server.stop();
    await withRegistration.stop();
  });

  it('answers /register with a JSON 404 while dynamic registration is off, for every method and client path', async () => {
    for (const [method, path] of [
      ['POST', '/register'],
      ['GET', '/register'],
      ['GET', '/register/some-client'],
      ['PUT', '/register/some-client'],
      ['DELETE', '/register/some-client'],
    ] as const) {
      const answer = await call(server, method, path, {
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        ...(method === 'POST' || method === 'PUT'
          ? { body: '{"redirect_uris":["https://a.example/cb"]}' }
          : {}),
      });
      expectEnvelope(answer, 404, 'not_found');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    const discovery = (await (
      await fetch(`${server.url}/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(discovery.registration_endpoint).toBeUndefined();
  });

  it('answers unknown paths and methods on the protocol routes with a JSON 404', async () => {
    const cases: [string, string][] = [
      ['GET', '/token'],
      ['PUT', '/token'],
      ['GET', '/token_info'],
      ['GET', '/revoke'],
      ['GET', '/par'],
      ['GET', '/device_authorization'],
      ['POST', '/jwks'],
      ['POST', '/.well-known/openid-configuration'],
      ['DELETE', '/userinfo'],
      ['POST', '/revocations/stream'],
      ['GET', '/no-such-endpoint'],
    ];
    for (const [method, path] of cases) expectEnvelope(await call(server, method, path), 404, 'not_found');
    // Under /admin the credential is asked first (no path is told to a stranger), then the same 404.
    expectEnvelope(await call(server, 'GET', '/admin/no-such-thing'), 401, 'invalid_token');
    expectEnvelope(
      await call(server, 'GET', '/admin/no-such-thing', {
        headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}` },
      }),
      404,
      'not_found',
    );
    // Registration on: its own paths answer; a method it does not take is still the envelope.
    expectEnvelope(await call(withRegistration, 'PATCH', '/register/some-client'), 404, 'not_found');
    expectEnvelope(
      await call(withRegistration, 'POST', '/register', {
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      401,
      'invalid_token',
    );
  });

  it('answers malformed bodies on the JSON endpoints with invalid_request, not an HTML 400', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const path of ['/token', '/revoke', '/par', '/device_authorization', '/token_info']) {
      const answer = await call(server, 'POST', path, { headers: form, body: 'a=%zz&b=%' });
      expect(answer.type).toMatch(/^application\/json/);
      expect(answer.text).not.toMatch(/<html|<pre>/i);
      expect(answer.status).toBeGreaterThanOrEqual(400);
    }
    const admin = await call(server, 'POST', '/admin/clients', {
      headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expectEnvelope(admin, 400, 'invalid_request');
  });
});
