import { OAuthError } from '@acme/common';
import { startWebServer, type WebServer } from './support/start-web-server';
import { authorizePath, inputValue, WebClient } from './support/web-client';

describe('/authorize with the login and consent pages', () => {
  let server: WebServer;
  let userId: string;
  const password = 'correct horse battery staple';
  beforeAll(async () => {
    server = await startWebServer();
    userId = await server.createUser('alice', password);
  });
  afterAll(async () => {
    await server.stop();
  });

  const client = () => server.clients[0]!;
  const request = (extra: Record<string, string> = {}) =>
    authorizePath({
      client_id: client().clientId,
      redirect_uri: client().redirectUris[0]!,
      response_type: 'code',
      scope: 'openid email',
      state: 'st-123',
      ...extra,
    });

  /** GET /authorize, then log in through the rendered form; returns the response to the login POST. */
  async function signIn(browser: WebClient, path: string, pass = password): Promise<Response> {
    const page = await browser.get(path);
    const html = await page.text();
    return browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: inputValue(html, 'return_to'),
      username: 'alice',
      password: pass,
    });
  }

  it('renders the login page with the security headers and no third-party resources', async () => {
    const response = await new WebClient(server.url).get(request());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const html = await response.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<label for="username">Username</label>');
    expect(html).toMatch(/<input\s+id="username"\s+name="username"\s+type="text"/);
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toMatch(/<input\s+id="password"\s+name="password"\s+type="password"/);
    expect(html).toContain('Photo &lt;Book&gt;');
    expect(html).not.toMatch(/(src|href|action)="(https?:)?\/\//);
  });

  it('answers a CORS preflight on /authorize without any Access-Control-Allow-Origin', async () => {
    const response = await fetch(`${server.url}/authorize`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('logs in with 303 (never 307), an HttpOnly SameSite=Lax session cookie, and stores only its hash', async () => {
    const browser = new WebClient(server.url);
    const response = await signIn(browser, request());
    expect(response.status).toBe(303);
    const location = response.headers.get('location')!;
    expect(location).toMatch(/^\/authorize\?/);
    expect(new URL(location, server.url).searchParams.get('state')).toBe('st-123');
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('auth_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const sessionId = browser.cookies.get('auth_session')!;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { rows } = await server.pool.query<{ session_hash: Buffer }>(
      'SELECT session_hash FROM sessions WHERE user_id = $1',
      [userId],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.session_hash.length).toBe(32);
      expect(row.session_hash.toString('base64url')).not.toBe(sessionId);
    }
  });

  it('shows the consent page listing the scopes in words, then allow redirects with code, state and iss', async () => {
    const browser = new WebClient(server.url);
    const login = await signIn(browser, request({ scope: 'openid email search.read', prompt: 'consent' }));
    const consentPage = await browser.get(login.headers.get('location')!);
    expect(consentPage.status).toBe(200);
    expect(consentPage.headers.get('x-frame-options')).toBe('DENY');
    const html = await consentPage.text();
    expect(html).toContain('<li data-scope="email">See your email address</li>');
    expect(html).toContain('<li data-scope="search.read">Search and read documents</li>');
    expect(html).toContain('<button type="submit" name="decision" value="allow">');
    expect(html).toContain('<button type="submit" name="decision" value="deny" class="secondary">');
    const decided = await browser.post('/consent', {
      csrf_token: inputValue(html, 'csrf_token'),
      authorize_query: inputValue(html, 'authorize_query'),
      decision: 'allow',
    });
    expect(decided.status).toBe(303);
    const callback = new URL(decided.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(client().redirectUris[0]);
    expect(callback.searchParams.get('code')).toMatch(/^fake-code-\d+$/);
    expect(callback.searchParams.get('state')).toBe('st-123');
    expect(callback.searchParams.get('iss')).toBe(server.config.ISSUER);
    const approval = server.flow!.approvals.find((a) => a.code === callback.searchParams.get('code'))!;
    expect(approval.user.userId).toBe(userId);
    expect(approval.approvedScopes).toEqual(['openid', 'email', 'search.read']);
    const { rows } = await server.pool.query(
      'SELECT scopes FROM consents WHERE user_id = $1 AND client_id = $2',
      [userId, client().clientId],
    );
    expect(rows).toEqual([{ scopes: ['email', 'openid', 'search.read'] }]);
  });

  it('remembers consent: the same or a narrower request goes straight to the client, prompt=consent asks again', async () => {
    const browser = new WebClient(server.url);
    const login = await signIn(browser, request({ scope: 'openid profile', prompt: 'consent' }));
    const html = await (await browser.get(login.headers.get('location')!)).text();
    await browser.post('/consent', {
      csrf_token: inputValue(html, 'csrf_token'),
      authorize_query: inputValue(html, 'authorize_query'),
      decision: 'allow',
    });
    const again = await browser.get(request({ scope: 'profile' }));
    expect(again.status).toBe(303);
    expect(new URL(again.headers.get('location')!).searchParams.get('code')).toMatch(/^fake-code-/);
    const forced = await browser.get(request({ scope: 'profile', prompt: 'consent' }));
    expect(forced.status).toBe(200);
    expect(await forced.text()).toContain('name="decision" value="allow"');
    const wider = await browser.get(request({ scope: 'openid profile offline_access' }));
    expect(wider.status).toBe(200);
    expect(await wider.text()).toContain('data-scope="offline_access"');
  });

  it('deny redirects with error=access_denied and the state, and remembers nothing', async () => {
    const other = await server.createUser('bob', password);
    const browser = new WebClient(server.url);
    const page = await browser.get(request());
    const loginHtml = await page.text();
    const login = await browser.post('/login', {
      csrf_token: inputValue(loginHtml, 'csrf_token'),
      return_to: inputValue(loginHtml, 'return_to'),
      username: 'BOB',
      password,
    });
    const html = await (await browser.get(login.headers.get('location')!)).text();
    const denied = await browser.post('/consent', {
      csrf_token: inputValue(html, 'csrf_token'),
      authorize_query: inputValue(html, 'authorize_query'),
      decision: 'deny',
    });
    expect(denied.status).toBe(303);
    const callback = new URL(denied.headers.get('location')!);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('st-123');
    expect(callback.searchParams.get('code')).toBeNull();
    const { rowCount } = await server.pool.query('SELECT 1 FROM consents WHERE user_id = $1', [other]);
    expect(rowCount).toBe(0);
    const events = server.audit().filter((e) => e.event === 'consent.denied' && e.userId === other);
    expect(events).toEqual([
      expect.objectContaining({ clientId: client().clientId, scopes: ['openid', 'email'], ip: '127.0.0.1' }),
    ]);
  });

  it('prompt=none without a session redirects with login_required', async () => {
    const response = await new WebClient(server.url).get(request({ prompt: 'none' }));
    expect(response.status).toBe(303);
    const callback = new URL(response.headers.get('location')!);
    expect(callback.searchParams.get('error')).toBe('login_required');
    expect(callback.searchParams.get('state')).toBe('st-123');
  });

  it('prompt=none with a session but no consent for the scopes redirects with consent_required', async () => {
    const browser = new WebClient(server.url);
    await signIn(browser, request());
    const response = await browser.get(request({ prompt: 'none', scope: 'offline_access' }));
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('consent_required');
  });

  it('prompt=login shows the login page to a signed-in user, and after logging in continues to consent', async () => {
    const browser = new WebClient(server.url);
    await signIn(browser, request());
    const first = browser.cookies.get('auth_session');
    const login = await signIn(browser, request({ prompt: 'login consent' }));
    expect(login.status).toBe(303);
    expect(browser.cookies.get('auth_session')).not.toBe(first);
    const next = await browser.get(login.headers.get('location')!);
    expect(next.status).toBe(200);
    expect(await next.text()).toContain('name="decision"');
  });

  it('max_age older than the login asks to log in again; the fresh login then satisfies it', async () => {
    const browser = new WebClient(server.url);
    await signIn(browser, request());
    server.clock.advance(120);
    const stale = await browser.get(request({ max_age: '60', prompt: 'consent' }));
    expect(stale.status).toBe(200);
    expect(await stale.text()).toContain('name="password"');
    const login = await signIn(browser, request({ max_age: '60', prompt: 'consent' }));
    server.clock.advance(61);
    const next = await browser.get(login.headers.get('location')!);
    expect(await next.text()).toContain('name="decision"');
    // The continuation is not a lasting pass: ten minutes later it asks for the password again.
    server.clock.advance(600);
    const later = await browser.get(login.headers.get('location')!);
    expect(await later.text()).toContain('name="password"');
  });

  it('renders an error page without a Location header for an unknown client', async () => {
    const response = await new WebClient(server.url).get(request({ client_id: 'nobody' }));
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).toContain('<h1>This sign-in request cannot continue</h1>');
    expect(html).toContain('<code>invalid_request</code>');
  });

  it('renders an error page without a Location header for an unregistered redirect_uri', async () => {
    for (const redirect_uri of [
      'http://127.0.0.1:9/cb/',
      'https://evil.example/cb',
      'http://127.0.0.1:9/CB',
    ]) {
      const response = await new WebClient(server.url).get(request({ redirect_uri }));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).not.toContain('evil.example');
    }
  });

  it('redirects other request errors to the registered redirect_uri with the error code', async () => {
    const response = await new WebClient(server.url).get(request({ response_type: 'token' }));
    expect(response.status).toBe(303);
    const callback = new URL(response.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(client().redirectUris[0]);
    expect(callback.searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('accepts the authorization request by POST as well (OIDC Core §3.1.2.1)', async () => {
    const response = await fetch(`${server.url}/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: request().slice('/authorize?'.length),
    });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('name="password"');
    expect(inputValue(html, 'return_to')).toBe(request());
  });

  it('a consent decision other than allow or deny is refused with a 400 page', async () => {
    const browser = new WebClient(server.url);
    const login = await signIn(browser, request({ prompt: 'consent' }));
    const html = await (await browser.get(login.headers.get('location')!)).text();
    const response = await browser.post('/consent', {
      csrf_token: inputValue(html, 'csrf_token'),
      authorize_query: inputValue(html, 'authorize_query'),
      decision: 'maybe',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('an OAuth error from approve becomes an error page with its code, not a redirect and not a 500', async () => {
    const browser = new WebClient(server.url);
    const login = await signIn(browser, request({ prompt: 'consent' }));
    const html = await (await browser.get(login.headers.get('location')!)).text();
    server.flow!.failNextApprove = new OAuthError('invalid_request', 'client no longer exists');
    const response = await browser.post('/consent', {
      csrf_token: inputValue(html, 'csrf_token'),
      authorize_query: inputValue(html, 'authorize_query'),
      decision: 'allow',
    });
    expect([response.status, response.headers.get('location')]).toEqual([400, null]);
    const page = await response.text();
    expect(page).toContain('client no longer exists');
    expect(page).toContain('<code>invalid_request</code>');
  });

  it('an unexpected failure renders a 500 page without details and logs the cause', async () => {
    const browser = new WebClient(server.url);
    const login = await signIn(browser, request({ prompt: 'consent' }));
    const html = await (await browser.get(login.headers.get('location')!)).text();
    server.flow!.failNextApprove = new Error('database exploded at /secret/path');
    const response = await browser.post('/consent', {
      csrf_token: inputValue(html, 'csrf_token'),
      authorize_query: inputValue(html, 'authorize_query'),
      decision: 'allow',
    });
    expect(response.status).toBe(500);
    const page = await response.text();
    expect(page).toContain('<h1>Something went wrong</h1>');
    expect(page).not.toContain('exploded');
    expect(server.logText()).toContain('database exploded');
  });
});
