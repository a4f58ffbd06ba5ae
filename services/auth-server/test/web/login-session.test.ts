import { startWebServer, type WebServer } from './support/start-web-server';
import { inputValue, WebClient } from './support/web-client';

describe('login, sessions, logout and CSRF', () => {
  let server: WebServer;
  let userId: string;
  const password = 'Tr0ub4dor&3 but longer';
  beforeAll(async () => {
    server = await startWebServer();
    userId = await server.createUser('carol', password);
  });
  afterAll(async () => {
    await server.stop();
  });

  async function loginForm(browser: WebClient, path = '/login'): Promise<{ csrf: string; returnTo: string }> {
    const html = await (await browser.get(path)).text();
    return { csrf: inputValue(html, 'csrf_token'), returnTo: inputValue(html, 'return_to') };
  }

  async function signIn(browser: WebClient): Promise<Response> {
    const { csrf } = await loginForm(browser);
    return browser.post('/login', { csrf_token: csrf, return_to: '/account', username: 'carol', password });
  }

  it('sets the pre-session CSRF cookie HttpOnly and SameSite=Lax on the login page', async () => {
    const response = await new WebClient(server.url).get('/login');
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('auth_csrf='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
  });

  it('rejects a login POST without a CSRF token with a 403 page and creates no session', async () => {
    const browser = new WebClient(server.url);
    await loginForm(browser);
    const response = await browser.post('/login', { username: 'carol', password, return_to: '/account' });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(await response.text()).toContain('<h1>Form expired</h1>');
    expect(browser.cookies.has('auth_session')).toBe(false);
  });

  it("rejects a CSRF token minted for another browser's cookie", async () => {
    const attacker = new WebClient(server.url);
    const { csrf } = await loginForm(attacker);
    const victim = new WebClient(server.url);
    await loginForm(victim);
    const response = await victim.post('/login', { csrf_token: csrf, username: 'carol', password });
    expect(response.status).toBe(403);
  });

  it('rejects a form whose CSRF cookie is missing, even with a well-formed token', async () => {
    const browser = new WebClient(server.url);
    const { csrf } = await loginForm(browser);
    browser.cookies.delete('auth_csrf');
    const response = await browser.post('/login', { csrf_token: csrf, username: 'carol', password });
    expect(response.status).toBe(403);
  });

  it('a wrong password re-renders the form with 400, keeps the username, audits without the password', async () => {
    const browser = new WebClient(server.url);
    const { csrf } = await loginForm(browser);
    const response = await browser.post('/login', {
      csrf_token: csrf,
      return_to: '/account',
      username: 'carol',
      password: 'wrong-password-value',
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('Incorrect username or password.');
    expect(inputValue(html, 'username')).toBe('carol');
    expect(html).not.toContain('wrong-password-value');
    expect(browser.cookies.has('auth_session')).toBe(false);
    expect(server.audit()).toContainEqual(
      expect.objectContaining({ event: 'login.failure', username: 'carol', ip: '127.0.0.1' }),
    );
    expect(server.logText()).not.toContain('wrong-password-value');
  });

  it('an unknown user gets the same answer as a wrong password', async () => {
    const browser = new WebClient(server.url);
    const { csrf } = await loginForm(browser);
    const response = await browser.post('/login', {
      csrf_token: csrf,
      return_to: '/account',
      username: 'nobody-here',
      password,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Incorrect username or password.');
  });

  it('logs in with 303 to the account page, audits login.success, and the session opens /account', async () => {
    const browser = new WebClient(server.url);
    const response = await signIn(browser);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/account');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(server.audit()).toContainEqual(expect.objectContaining({ event: 'login.success', userId }));
    const account = await browser.get('/account');
    expect(account.status).toBe(200);
    expect(await account.text()).toContain('Signed in as <strong>carol</strong>');
    expect(server.logText()).not.toContain(password);
    expect(server.logText()).not.toContain(browser.cookies.get('auth_session'));
  });

  it('never redirects a login to another site: an absolute return_to falls back to /account', async () => {
    const browser = new WebClient(server.url);
    for (const return_to of ['https://evil.example/', '//evil.example/x', '/admin']) {
      // Each sign-in starts a new session, and the form's token is bound to the session it was shown in.
      const { csrf } = await loginForm(browser);
      const response = await browser.post('/login', {
        csrf_token: csrf,
        return_to,
        username: 'carol',
        password,
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/account');
    }
  });

  it('replaces the session on a new login (no fixation): the old id stops working', async () => {
    const browser = new WebClient(server.url);
    await signIn(browser);
    const first = browser.cookies.get('auth_session')!;
    await signIn(browser);
    const second = browser.cookies.get('auth_session')!;
    expect(second).not.toBe(first);
    const stale = new WebClient(server.url);
    stale.cookies.set('auth_session', first);
    expect((await stale.get('/account')).status).toBe(303);
  });

  it('logout deletes the session row and clears the cookie', async () => {
    const browser = new WebClient(server.url);
    await signIn(browser);
    const sessionId = browser.cookies.get('auth_session')!;
    const html = await (await browser.get('/account')).text();
    const { rows: before } = await server.pool.query('SELECT count(*)::int AS n FROM sessions');
    const response = await browser.post('/logout', { csrf_token: inputValue(html, 'csrf_token') });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login');
    expect(browser.cookies.has('auth_session')).toBe(false);
    const { rows: after } = await server.pool.query('SELECT count(*)::int AS n FROM sessions');
    expect(after[0].n).toBe(before[0].n - 1);
    const replay = new WebClient(server.url);
    replay.cookies.set('auth_session', sessionId);
    expect((await replay.get('/account')).status).toBe(303);
  });

  it('a logout POST without a CSRF token is refused and the session survives', async () => {
    const browser = new WebClient(server.url);
    await signIn(browser);
    const response = await browser.post('/logout', {});
    expect(response.status).toBe(403);
    expect((await browser.get('/account')).status).toBe(200);
  });

  it('a session expires after SESSION_TTL_SECONDS (fake clock)', async () => {
    const browser = new WebClient(server.url);
    await signIn(browser);
    server.clock.advance(server.config.SESSION_TTL_SECONDS - 5);
    expect((await browser.get('/account')).status).toBe(200);
    server.clock.advance(10);
    const expired = await browser.get('/account');
    expect(expired.status).toBe(303);
    expect(expired.headers.get('location')).toBe('/login?return_to=%2Faccount');
  });

  it('a disabled user loses the session at once', async () => {
    const daveId = await server.createUser('dave', password);
    const browser = new WebClient(server.url);
    const { csrf } = await loginForm(browser);
    await browser.post('/login', { csrf_token: csrf, return_to: '/account', username: 'dave', password });
    expect((await browser.get('/account')).status).toBe(200);
    await server.pool.query('UPDATE users SET disabled_at = now() WHERE user_id = $1', [daveId]);
    expect((await browser.get('/account')).status).toBe(303);
  });
});

describe('cookies behind TLS', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({ env: { ISSUER: 'https://id.example' } });
    await server.createUser('erin', 'erin password 123');
  });
  afterAll(async () => {
    await server.stop();
  });

  it('names the CSRF and session cookies __Host- (Secure, Path=/, no Domain) when the issuer is https', async () => {
    const browser = new WebClient(server.url);
    const page = await browser.get('/login');
    const csrf = page.headers.getSetCookie().find((l) => l.startsWith('__Host-auth_csrf='));
    expect(csrf).toMatch(/; Secure/);
    expect(csrf).toMatch(/; Path=\/(;|$)/);
    expect(csrf).not.toMatch(/Domain=/i);
    expect(page.headers.getSetCookie().some((l) => l.startsWith('auth_csrf='))).toBe(false);
    const html = await page.text();
    const response = await browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: '/account',
      username: 'erin',
      password: 'erin password 123',
    });
    expect(response.status).toBe(303);
    const session = response.headers.getSetCookie().find((l) => l.startsWith('__Host-auth_session='));
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; Path=\/(;|$)/);
    expect(session).not.toMatch(/Domain=/i);
    expect((await browser.get('/account')).status).toBe(200);
  });
});
