import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient, pkce } from '../support/oauth-helpers';
import { authorizePath, inputValue, WebClient } from './support/web-client';

/** GET /authorize over HTTP with the real protocol core: API-NOTES B2.1 S1, S2, S12, S13, S14, S16. */
describe('/authorize over HTTP with the real AuthorizationFlow (RFC 9700 checks)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string };
  const { challenge } = pkce();
  const request = (extra: Record<string, string> = {}) =>
    authorizePath({
      client_id: client.clientId,
      redirect_uri: 'https://app.example/cb',
      response_type: 'code',
      scope: 'openid email',
      state: 'xyz',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    });
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server, { name: 'Real App', grant_types: ['authorization_code'] });
    const created = await admin(server, 'POST', '/users', { username: 'lena', password: 'lena password 42' });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('S13/S14/S16: the login page carries anti-framing and no-referrer headers, no third-party resources, no CORS', async () => {
    const response = await new WebClient(server.url).get(request(), { origin: 'https://evil.example' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const html = await response.text();
    expect(html).toContain('Sign in to continue to <strong>Real App</strong>');
    expect(html).not.toMatch(/(src|href|action)="(https?:)?\/\//);
    const preflight = await fetch(`${server.url}/authorize`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.each([
    ['an unknown client', { client_id: 'no-such-client' }],
    ['a trailing slash', { redirect_uri: 'https://app.example/cb/' }],
    ['an extra query', { redirect_uri: 'https://app.example/cb?x=1' }],
    ['another case', { redirect_uri: 'https://app.example/CB' }],
    ['another host', { redirect_uri: 'https://app.example.evil/cb' }],
    ['another port', { redirect_uri: 'https://app.example:8443/cb' }],
    ['http instead of https', { redirect_uri: 'http://app.example/cb' }],
    ['a fragment', { redirect_uri: 'https://app.example/cb#x' }],
  ])('S1/S2: %s gets an HTML error page and no Location header', async (_label, extra) => {
    const response = await new WebClient(server.url).get(request(extra));
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(await response.text()).toContain('<code>invalid_request</code>');
  });

  it('S2: a bad scope with a registered redirect_uri redirects the error only to that URI, with state and iss', async () => {
    const response = await new WebClient(server.url).get(request({ scope: 'openid admin.everything' }));
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://app.example/cb');
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe(server.config.ISSUER);
  });

  it('prompt=none without a session redirects login_required to the registered URI', async () => {
    const response = await new WebClient(server.url).get(request({ prompt: 'none' }));
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('login_required');
    expect(location.searchParams.get('state')).toBe('xyz');
  });

  it('S12: the login POST answers 303, then consent, then a 303 with code, state and iss (RFC 9207)', async () => {
    const browser = new WebClient(server.url);
    const html = await (await browser.get(request())).text();
    const login = await browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: inputValue(html, 'return_to'),
      username: 'lena',
      password: 'lena password 42',
    });
    expect(login.status).toBe(303);
    const consent = await browser.get(login.headers.get('location')!);
    const consentHtml = await consent.text();
    expect(consentHtml).toContain('<li data-scope="email">See your email address</li>');
    const decided = await browser.post('/consent', {
      csrf_token: inputValue(consentHtml, 'csrf_token'),
      authorize_query: inputValue(consentHtml, 'authorize_query'),
      decision: 'allow',
    });
    expect(decided.status).toBe(303);
    const location = new URL(decided.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://app.example/cb');
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe(server.config.ISSUER);
    const again = await browser.get(request({ prompt: 'none' }));
    expect(again.status).toBe(303);
    expect(new URL(again.headers.get('location')!).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  });
});
