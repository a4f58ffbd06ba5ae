import { assert, createCredential, type SoftCredential } from '../support/soft-authenticator';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createUser } from '../support/oauth-helpers';
import { signInAtLogin } from './support/totp-helpers';
import { inputValue, WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery';

/**
 * "Sign in with a passkey" at the admin console, with an authenticator in the test (soft-authenticator.ts):
 * WebAuthn refuses IP addresses as RP IDs, so the issuer is http://localhost:<port>.
 */
describe('admin console passkey sign-in', () => {
  let server: RunningAuthServer;
  let origin: string;

  beforeAll(async () => {
    server = await startAuthServer({ LOGIN_MAX_FAILURES_PER_IP: '1000' }, { issuerHost: 'localhost' });
    origin = server.config.ISSUER;
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function postJson(browser: WebClient, path: string, body: unknown): Promise<Response> {
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return fetch(new URL(path, server.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
  }

  /** A user (an admin unless told otherwise) with one passkey registered on the account page. */
  async function userWithPasskey(
    isAdmin = true,
  ): Promise<{ userId: string; username: string; credential: SoftCredential }> {
    const user = await createUser(server);
    if (isAdmin) expect((await admin(server, 'PUT', `/users/${user.userId}/roles/admin`)).status).toBe(204);
    const browser = new WebClient(server.url);
    expect((await signInAtLogin(browser, user.username, PASSWORD)).status).toBe(303);
    const csrf = inputValue(await (await browser.get('/account')).text(), 'csrf_token');
    const options = await postJson(browser, '/account/passkeys/options', { csrf_token: csrf });
    expect(options.status).toBe(200);
    const created = createCredential((await options.json()) as never, origin);
    const registered = await browser.post('/account/passkeys', {
      csrf_token: csrf,
      name: 'Laptop',
      credential: JSON.stringify(created.response),
    });
    expect(registered.status).toBe(303);
    return { ...user, credential: created.credential };
  }

  /** A fresh browser at the console's sign-in asks for request options at `optionsPath`. */
  async function startAt(optionsPath: string, loginPath = '/admin/console/login') {
    const browser = new WebClient(server.url);
    const page = await (await browser.get(loginPath)).text();
    const csrf = inputValue(page, 'csrf_token');
    const response = await postJson(browser, optionsPath, { csrf_token: csrf });
    expect(response.status).toBe(200);
    return { browser, csrf, page, options: (await response.json()) as { challenge: string; rpId: string } };
  }

  it('offers the passkey at the console sign-in and signs an admin in with it, recorded as multi-factor', async () => {
    const user = await userWithPasskey();
    const { browser, csrf, page, options } = await startAt('/admin/console/login/passkey/options');
    expect(page).toContain('action="/admin/console/login/passkey"');
    expect(page).toContain('data-options="/admin/console/login/passkey/options"');
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required', allowCredentials: [] });
    const response = await browser.post('/admin/console/login/passkey', {
      csrf_token: csrf,
      credential: JSON.stringify(assert(user.credential, options, origin)),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/admin');
    expect((await browser.get('/admin')).status).toBe(200);
    const { rows } = await server.pool.query('SELECT amr FROM admin_console_sessions WHERE user_id = $1', [
      user.userId,
    ]);
    expect(rows).toEqual([{ amr: ['hwk', 'user', 'mfa'] }]);
  });

  it('does not let an admin with a passkey in by the password alone', async () => {
    const user = await userWithPasskey();
    const browser = new WebClient(server.url);
    const page = await (await browser.get('/admin/console/login')).text();
    const response = await browser.post('/admin/console/login', {
      csrf_token: inputValue(page, 'csrf_token'),
      username: user.username,
      password: PASSWORD,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'Your account has a passkey: sign in to the admin console with your passkey.',
    );
    expect(browser.cookies.has('auth_admin')).toBe(false);
  });

  it('refuses a passkey whose owner is not an admin, and a challenge fetched for /login', async () => {
    const plain = await userWithPasskey(false);
    const atConsole = await startAt('/admin/console/login/passkey/options');
    const notAdmin = await atConsole.browser.post('/admin/console/login/passkey', {
      csrf_token: atConsole.csrf,
      credential: JSON.stringify(assert(plain.credential, atConsole.options, origin)),
    });
    expect(notAdmin.status).toBe(400);
    expect(atConsole.browser.cookies.has('auth_admin')).toBe(false);

    // The pages' ceremony, finished at the console: its challenge is bound to the pages, not found here.
    const user = await userWithPasskey();
    const atPages = await startAt('/login/passkey/options', '/login');
    const crossed = await atPages.browser.post('/admin/console/login/passkey', {
      csrf_token: inputValue(await (await atPages.browser.get('/admin/console/login')).text(), 'csrf_token'),
      credential: JSON.stringify(assert(user.credential, atPages.options, origin)),
    });
    expect(crossed.status).toBe(400);
    expect(atPages.browser.cookies.has('auth_admin')).toBe(false);
  });

  it('backs off a credential at an address after failed assertions (429, Retry-After), the good one too', async () => {
    const user = await userWithPasskey();
    const signIn = (attempt: Awaited<ReturnType<typeof startAt>>, credential: unknown) =>
      attempt.browser.post('/admin/console/login/passkey', {
        csrf_token: attempt.csrf,
        credential: JSON.stringify(credential),
      });
    const bad = async () => {
      const attempt = await startAt('/admin/console/login/passkey/options');
      return signIn(
        attempt,
        assert(user.credential, attempt.options, origin, { origin: 'http://evil.example' }),
      );
    };
    // LOGIN_MAX_FAILURES_PER_ACCOUNT (5) free failures per credential and address, then the back-off.
    for (let i = 0; i < 5; i++) expect((await bad()).status).toBe(400);
    // The good answer is ready before the failure that starts the back-off (1 s): no race with it.
    const attempt = await startAt('/admin/console/login/passkey/options');
    const good = assert(user.credential, attempt.options, origin);
    expect((await bad()).status).toBe(400);
    const response = await signIn(attempt, good);
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await response.text()).toContain('Too many failed sign-in attempts.');
    expect(attempt.browser.cookies.has('auth_admin')).toBe(false);
  });
});
