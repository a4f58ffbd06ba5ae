import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, basic, postForm } from '../support/oauth-helpers';
import { inputValue, WebClient } from './support/web-client';

/**
 * The admin console over HTTP (real Postgres and Redis): who gets in, CSRF, which cookie counts where,
 * secret rotation, audit events from the console and the JSON API, hostile input.
 */
describe('admin console', () => {
  let server: RunningAuthServer;
  const adminUser = { username: 'root-admin', password: 'console password 2026' };
  const plainUser = { username: 'plain-user', password: 'plain password 2026' };
  let adminId: string;
  let plainId: string;

  beforeAll(async () => {
    server = await startAuthServer();
    adminId = (await admin(server, 'POST', '/users', adminUser)).body.user_id as string;
    plainId = (await admin(server, 'POST', '/users', plainUser)).body.user_id as string;
    expect((await admin(server, 'PUT', `/users/${adminId}/roles/admin`)).status).toBe(204);
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function signIn(credentials: { username: string; password: string }) {
    const browser = new WebClient(server.url);
    const page = await browser.get('/admin/console/login');
    expect(page.status).toBe(200);
    const response = await browser.post('/admin/console/login', {
      csrf_token: inputValue(await page.text(), 'csrf_token'),
      ...credentials,
    });
    return { browser, response };
  }

  async function csrfOf(browser: WebClient, path: string): Promise<string> {
    const page = await browser.get(path);
    expect(page.status).toBe(200);
    return inputValue(await page.text(), 'csrf_token');
  }

  async function auditActions(): Promise<
    { action: string; actor: string; target_id: string | null; details: unknown }[]
  > {
    const { body } = await admin(server, 'GET', '/audit-events?limit=100');
    return body.events as { action: string; actor: string; target_id: string | null; details: unknown }[];
  }

  it('sends /admin to the console sign-in; an admin signs in with a strict, /admin-scoped cookie', async () => {
    const anonymous = await fetch(`${server.url}/admin`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/admin/console/login');
    expect(anonymous.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(anonymous.headers.get('x-frame-options')).toBe('DENY');

    const { browser, response } = await signIn(adminUser);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/admin');
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('auth_admin='))!;
    expect(cookie).toMatch(/Path=\/admin/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=7200/);
    const home = await browser.get('/admin');
    expect(home.status).toBe(200);
    expect(home.headers.get('cache-control')).toBe('no-store');
    const body = await home.text();
    expect(body).toContain('root-admin');
    expect(body).not.toMatch(/<script|style=/);
    // The session is stored hashed: the cookie value is nowhere in the table.
    const value = browser.cookies.get('auth_admin')!;
    const { rows } = await server.pool.query<{ session_hash: Buffer }>(
      'SELECT session_hash FROM admin_console_sessions',
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((row) => row.session_hash.toString('base64url') === value)).toBe(false);
  });

  it('ends the console session on sign-out, after the idle limit, and after the absolute limit', async () => {
    const { browser } = await signIn(adminUser);
    expect((await browser.get('/admin/console/users')).status).toBe(200);
    const signedOut = await browser.post('/admin/console/logout', {
      csrf_token: await csrfOf(browser, '/admin/console/users'),
    });
    expect(signedOut.status).toBe(303);
    expect(browser.cookies.has('auth_admin')).toBe(false);

    const idle = await signIn(adminUser);
    const stale = idle.browser.cookies.get('auth_admin')!;
    expect((await idle.browser.get('/admin/console/users')).status).toBe(200);
    // 15 minutes and a second without a request (ADMIN_CONSOLE_IDLE_SECONDS = 900).
    await server.pool.query(
      "UPDATE admin_console_sessions SET last_seen_at = now() - interval '901 seconds' WHERE user_id = $1",
      [adminId],
    );
    expect((await idle.browser.get('/admin/console/users')).status).toBe(303);
    const absolute = await signIn(adminUser);
    expect(absolute.browser.cookies.get('auth_admin')).not.toBe(stale);
    await server.pool.query(
      "UPDATE admin_console_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1",
      [adminId],
    );
    expect((await absolute.browser.get('/admin/console/users')).status).toBe(303);
  });

  it('applies the login throttle to the console sign-in', async () => {
    const target = { username: 'throttled-admin', password: 'throttled admin pw' };
    const id = (await admin(server, 'POST', '/users', target)).body.user_id as string;
    await admin(server, 'PUT', `/users/${id}/roles/admin`);
    for (let i = 0; i <= server.config.LOGIN_MAX_FAILURES_PER_ACCOUNT; i += 1)
      expect((await signIn({ username: target.username, password: `wrong ${i}` })).response.status).toBe(400);
    const throttled = await signIn(target);
    expect(throttled.response.status).toBe(429);
    expect(Number(throttled.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.browser.cookies.has('auth_admin')).toBe(false);
  });

  it('refuses a user without the admin role exactly as a wrong password', async () => {
    const nonAdmin = await signIn(plainUser);
    const wrong = await signIn({ username: adminUser.username, password: 'not the password' });
    expect(nonAdmin.response.status).toBe(400);
    expect(wrong.response.status).toBe(400);
    const refusal = (html: string) => /<p role="alert"[^>]*>([^<]*)</.exec(html)?.[1];
    expect(refusal(await nonAdmin.response.text())).toBe('Incorrect username or password.');
    expect(refusal(await wrong.response.text())).toBe('Incorrect username or password.');
    expect(nonAdmin.browser.cookies.has('auth_admin')).toBe(false);
    expect((await nonAdmin.browser.get('/admin/console/clients')).status).toBe(303);
  });

  it('does not let a page session into the console, nor the console cookie into the JSON API', async () => {
    // An admin signed in on the ordinary pages holds a page session: the console still asks to sign in.
    const pages = new WebClient(server.url);
    const login = await pages.get('/login');
    const signedIn = await pages.post('/login', {
      csrf_token: inputValue(await login.text(), 'csrf_token'),
      return_to: '/account',
      ...adminUser,
    });
    expect(signedIn.status).toBe(303);
    const console = await pages.get('/admin/console/clients');
    expect(console.status).toBe(303);
    expect(console.headers.get('location')).toBe('/admin/console/login');

    const { browser } = await signIn(adminUser);
    const api = await browser.get('/admin/clients', { accept: 'application/json' });
    expect(api.status).toBe(401);
    expect(((await api.json()) as { error: string }).error).toBe('invalid_token');
  });

  it('refuses a POST without the CSRF token, or with another session’s', async () => {
    const { browser } = await signIn(adminUser);
    const missing = await browser.post('/admin/console/users', {
      username: 'csrf-victim',
      password: 'long enough pw',
    });
    expect(missing.status).toBe(403);
    const other = await signIn(adminUser);
    const foreign = await csrfOf(other.browser, '/admin/console/users');
    const crossed = await browser.post('/admin/console/users', {
      csrf_token: foreign,
      username: 'csrf-victim',
      password: 'long enough pw',
    });
    expect(crossed.status).toBe(403);
    expect((await admin(server, 'GET', '/users?search=csrf-victim')).body).toEqual([]);
  });

  it('creates a client with the secret shown once, edits it, rotates the secret (old one dead), deletes it', async () => {
    const { browser } = await signIn(adminUser);
    const created = await browser.post('/admin/console/clients', {
      csrf_token: await csrfOf(browser, '/admin/console/clients/new'),
      name: 'Console <b>app</b>',
      client_type: 'confidential',
      application_type: 'web',
      redirect_uris: 'https://app.example/cb',
      grant_types: 'client_credentials',
      scopes: 'search.read',
      token_format: 'opaque',
      jwt_alg: 'HS256',
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const page = await created.text();
    expect(page).toContain('Console &lt;b&gt;app&lt;/b&gt;');
    const clientId = /<code id="created-id">([^<]+)</.exec(page)![1]!;
    const secret = /<code id="created-secret"[^>]*>([^<]+)</.exec(page)![1]!;
    const token = (s: string) =>
      postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials' },
        { authorization: basic(clientId, s) },
      );
    expect((await token(secret)).status).toBe(200);
    // Never shown again: the edit page has no secret.
    const edit = await browser.get(`/admin/console/clients/${clientId}`);
    expect(await edit.text()).not.toContain(secret);

    // Edit: a validation error is shown on the form (400), not a 500, and nothing changes.
    const csrf = await csrfOf(browser, `/admin/console/clients/${clientId}`);
    const bad = await browser.post(`/admin/console/clients/${clientId}`, {
      csrf_token: csrf,
      name: 'Console app',
      redirect_uris: 'http://not-https.example/cb',
      grant_types: 'client_credentials',
      scopes: 'search.read',
      token_format: 'opaque',
      jwt_alg: 'HS256',
      access_token_ttl_seconds: '600',
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(
      /role="alert"[^>]*>The client was not saved: Redirect URI http:\/\/not-https\.example\/cb must use https/,
    );
    const badNumber = await browser.post(`/admin/console/clients/${clientId}`, {
      csrf_token: csrf,
      name: 'Console app',
      access_token_ttl_seconds: '1e9',
    });
    expect(badNumber.status).toBe(400);
    const saved = await browser.post(`/admin/console/clients/${clientId}`, {
      csrf_token: csrf,
      name: 'Console app',
      redirect_uris: 'https://app.example/cb\nhttps://app.example/other',
      grant_types: 'client_credentials',
      scopes: 'search.read search.write',
      token_format: 'jwt',
      jwt_alg: 'RS256',
      access_token_ttl_seconds: '600',
    });
    expect(saved.status).toBe(303);
    const stored = (await admin(server, 'GET', `/clients/${clientId}`)).body;
    expect(stored).toMatchObject({
      name: 'Console app',
      redirect_uris: ['https://app.example/cb', 'https://app.example/other'],
      scopes: ['search.read', 'search.write'],
      token_format: 'jwt',
      jwt_alg: 'RS256',
      access_token_ttl_seconds: 600,
    });
    expect((await token(secret)).status).toBe(200); // editing keeps the secret

    const rotated = await browser.post(`/admin/console/clients/${clientId}/secret`, {
      csrf_token: await csrfOf(browser, `/admin/console/clients/${clientId}`),
    });
    expect(rotated.status).toBe(200);
    const newSecret = /<code id="created-secret"[^>]*>([^<]+)</.exec(await rotated.text())![1]!;
    expect(newSecret).not.toBe(secret);
    expect((await token(secret)).status).toBe(401);
    expect((await token(newSecret)).status).toBe(200);

    const deleted = await browser.post(`/admin/console/clients/${clientId}/delete`, {
      csrf_token: await csrfOf(browser, `/admin/console/clients/${clientId}`),
    });
    expect(deleted.status).toBe(303);
    expect((await admin(server, 'GET', `/clients/${clientId}`)).status).toBe(404);

    const events = (await auditActions()).filter((e) => e.target_id === clientId);
    expect(events.map((e) => e.action)).toEqual([
      'client.delete',
      'client.secret_rotate',
      'client.update',
      'client.create',
    ]);
    expect(new Set(events.map((e) => e.actor))).toEqual(new Set(['root-admin']));
    const { rows } = await server.pool.query('SELECT details::text AS d FROM audit_events');
    for (const row of rows as { d: string }[]) {
      expect(row.d).not.toContain(secret);
      expect(row.d).not.toContain(newSecret);
    }
  });

  it('words the domain’s validation details in German for a German admin', async () => {
    const { browser } = await signIn(adminUser);
    const de = { 'accept-language': 'de-DE,de;q=0.9' };
    const form = await (await browser.get('/admin/console/clients/new', de)).text();
    const created = await browser.post(
      '/admin/console/clients',
      {
        csrf_token: inputValue(form, 'csrf_token'),
        name: 'Deutsche App',
        client_type: 'confidential',
        application_type: 'web',
        redirect_uris: 'http://not-https.example/cb',
        grant_types: 'authorization_code',
        scopes: 'openid',
        token_format: 'opaque',
        jwt_alg: 'HS256',
      },
      de,
    );
    expect(created.status).toBe(400);
    expect(await created.text()).toMatch(
      /role="alert"[^>]*>Der Client wurde nicht gespeichert: Die Weiterleitungs-URI http:\/\/not-https\.example\/cb muss https verwenden/,
    );
    const users = await (await browser.get('/admin/console/users', de)).text();
    const shortPassword = await browser.post(
      '/admin/console/users',
      { csrf_token: inputValue(users, 'csrf_token'), username: 'kurz-pw', password: 'kurz' },
      de,
    );
    expect(shortPassword.status).toBe(400);
    expect(await shortPassword.text()).toContain(
      'Der Benutzer wurde nicht gespeichert: password: mindestens 8 Zeichen.',
    );
    // English stays English (and worded by the console, not the API's text).
    const english = await browser.post('/admin/console/clients', {
      csrf_token: inputValue(form, 'csrf_token'),
      name: 'English app',
      client_type: 'confidential',
      application_type: 'web',
      redirect_uris: 'http://not-https.example/cb',
    });
    expect(await english.text()).toContain(
      'The client was not saved: Redirect URI http://not-https.example/cb must use https',
    );
  });

  it('rotates a secret through the JSON API too, and records API actions with their actor', async () => {
    const created = await admin(server, 'POST', '/clients', {
      name: 'API app',
      client_type: 'confidential',
      grant_types: ['client_credentials'],
    });
    expect(created.status).toBe(201);
    const clientId = created.body.client_id as string;
    const oldSecret = created.body.client_secret as string;
    const rotated = await admin(server, 'POST', `/clients/${clientId}/secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.client_secret as string;
    const token = (s: string) =>
      postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials' },
        { authorization: basic(clientId, s) },
      );
    expect((await token(oldSecret)).status).toBe(401);
    expect((await token(newSecret)).status).toBe(200);
    const patched = await admin(server, 'PATCH', `/clients/${clientId}`, {
      scopes: ['a.b'],
      client_type: 'public',
    });
    expect(patched.status).toBe(400); // client_type is not editable
    expect((await admin(server, 'PATCH', `/clients/${clientId}`, { scopes: ['a.b'] })).body.scopes).toEqual([
      'a.b',
    ]);

    const cli = await fetch(`${server.url}/admin/resource-servers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.config.ADMIN_TOKEN}`,
        'content-type': 'application/json',
        'x-admin-actor': 'cli',
      },
      body: JSON.stringify({ id: 'rs-cli', audience: 'rs-cli', scopes: ['x.read'] }),
    });
    expect(cli.status).toBe(201);
    const events = await auditActions();
    expect(events.filter((e) => e.target_id === clientId).map((e) => [e.action, e.actor])).toEqual([
      ['client.update', 'admin-token'],
      ['client.secret_rotate', 'admin-token'],
      ['client.create', 'admin-token'],
    ]);
    expect(events.find((e) => e.target_id === 'rs-cli')).toMatchObject({
      action: 'resource_server.create',
      actor: 'cli',
    });
  });

  it('disables and enables a user from the console; the user can then not sign in', async () => {
    const { browser } = await signIn(adminUser);
    const csrf = await csrfOf(browser, '/admin/console/users?search=plain');
    const list = await (await browser.get('/admin/console/users?search=plain')).text();
    expect(list).toContain('plain-user');
    expect(list).toContain('<td>plain-user</td>');
    expect(list).not.toContain('<td>root-admin</td>');
    expect((await browser.post(`/admin/console/users/${plainId}/disable`, { csrf_token: csrf })).status).toBe(
      303,
    );
    expect((await admin(server, 'GET', `/users/${plainId}`)).status).toBe(404);
    expect((await admin(server, 'GET', '/users?search=plain')).body).toMatchObject([{ disabled: true }]);
    expect((await browser.post(`/admin/console/users/${plainId}/enable`, { csrf_token: csrf })).status).toBe(
      303,
    );
    expect((await admin(server, 'GET', `/users/${plainId}`)).status).toBe(200);
    // An admin cannot lock themselves out.
    expect((await browser.post(`/admin/console/users/${adminId}/disable`, { csrf_token: csrf })).status).toBe(
      400,
    );
    const actions = (await auditActions()).filter((e) => e.target_id === plainId).map((e) => e.action);
    expect(actions.slice(0, 2)).toEqual(['user.enable', 'user.disable']);
  });

  it('resets a user’s MFA from the console and the API through resetMfa, both audited', async () => {
    const { browser } = await signIn(adminUser);
    const csrf = await csrfOf(browser, '/admin/console/users?search=plain');
    const reset = await browser.post(`/admin/console/users/${plainId}/reset-mfa`, { csrf_token: csrf });
    expect(reset.status).toBe(303);
    expect(reset.headers.get('location')).toBe('/admin/console/users?done=mfa_reset');
    expect((await admin(server, 'POST', `/users/${plainId}/mfa/reset`)).body).toEqual({
      user_id: plainId,
      totp_removed: false,
      recovery_codes_removed: 0,
      passkeys_removed: 0,
    });
    const events = (await auditActions()).filter(
      (e) => e.target_id === plainId && e.action === 'user.mfa_reset',
    );
    expect(events.map((e) => e.actor)).toEqual(['admin-token', 'root-admin']);
    expect(
      (await browser.post('/admin/console/users/not-a-uuid/reset-mfa', { csrf_token: csrf })).status,
    ).toBe(404);
  });

  it('revoking the admin role ends the console session at once', async () => {
    const other = { username: 'second-admin', password: 'second admin password' };
    const id = (await admin(server, 'POST', '/users', other)).body.user_id as string;
    await admin(server, 'PUT', `/users/${id}/roles/admin`);
    const { browser, response } = await signIn(other);
    expect(response.status).toBe(303);
    expect((await browser.get('/admin/console/users')).status).toBe(200);
    expect((await admin(server, 'DELETE', `/users/${id}/roles/admin`)).status).toBe(204);
    expect((await browser.get('/admin/console/users')).status).toBe(303);
  });

  it('bounds hostile input: escapes values, refuses huge lists and malformed paging, never a 500', async () => {
    const { browser } = await signIn(adminUser);
    const csrf = await csrfOf(browser, '/admin/console/users');
    const many = await browser.post('/admin/console/clients', {
      csrf_token: csrf,
      name: 'Many',
      client_type: 'confidential',
      application_type: 'web',
      redirect_uris: Array.from({ length: 60 }, (_, i) => `https://a.example/${i}`).join('\n'),
    });
    expect(many.status).toBe(400);
    expect(await many.text()).toContain('Too many values in one field (at most 50).');
    const search = await browser.get(
      `/admin/console/users?search=${encodeURIComponent('"><script>x</script>%_')}&offset=99999999`,
    );
    expect(search.status).toBe(200);
    const text = await search.text();
    expect(text).not.toContain('<script>x');
    expect(text).toContain('&quot;&gt;&lt;script&gt;');
    expect((await browser.get('/admin/console/grants?user_id=not-a-uuid')).status).toBe(400);
    expect((await browser.get('/admin/console/audit?before=garbage')).status).toBe(200);
    expect((await browser.get('/admin/console/clients/%00nope')).status).toBe(404);
    expect((await browser.get('/admin/console/nowhere')).status).toBe(404);
    expect((await admin(server, 'GET', '/users?limit=100000')).status).toBe(200);
    expect((await admin(server, 'GET', '/audit-events?before=x')).status).toBe(400);
  });

  it('keeps the JSON admin API as it was: bearer required, same answers', async () => {
    const noToken = await fetch(`${server.url}/admin/clients`);
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toContain('Bearer realm="admin"');
    expect(noToken.headers.get('content-security-policy')).toBeNull();
    const listed = await admin(server, 'GET', '/clients');
    expect(Array.isArray(listed.body)).toBe(true);
    const rotated = await admin(server, 'POST', '/signing-keys/rotate', { alg: 'RS256' });
    expect(rotated.status).toBe(200);
    expect(Array.isArray(rotated.body.keys)).toBe(true);
    const keys = await admin(server, 'GET', '/signing-keys');
    expect((keys.body as unknown as { retired_at: string | null }[]).some((k) => k.retired_at !== null)).toBe(
      true,
    );
    expect((await admin(server, 'GET', '/nothing-here')).body.error).toBe('not_found');
  });
});
