import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createUser } from '../support/oauth-helpers';
import { signInAtLogin, submitSecondFactor, totpCode, userWithTotp } from './support/totp-helpers';
import { inputValue, WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery';
const SECOND_FACTOR = '/admin/console/login/second-factor';

/** Console sign-in pieces shared by the describes below. */
function consoleSignIn(server: RunningAuthServer) {
  async function password(username: string, browser = new WebClient(server.url)) {
    const page = await browser.get('/admin/console/login');
    expect(page.status).toBe(200);
    const response = await browser.post('/admin/console/login', {
      csrf_token: inputValue(await page.text(), 'csrf_token'),
      username,
      password: PASSWORD,
    });
    return { browser, response };
  }
  async function code(browser: WebClient, value: string): Promise<Response> {
    const page = await browser.get(SECOND_FACTOR);
    expect(page.status).toBe(200);
    return browser.post(SECOND_FACTOR, {
      csrf_token: inputValue(await page.text(), 'csrf_token'),
      code: value,
    });
  }
  async function makeAdmin(userId: string) {
    expect((await admin(server, 'PUT', `/users/${userId}/roles/admin`)).status).toBe(204);
  }
  async function adminWithTotp() {
    const user = await userWithTotp(server);
    await makeAdmin(user.userId);
    return user;
  }
  async function consoleAmr(userId: string): Promise<string[][]> {
    const { rows } = await server.pool.query<{ amr: string[] }>(
      'SELECT amr FROM admin_console_sessions WHERE user_id = $1 ORDER BY created_at',
      [userId],
    );
    return rows.map((row) => row.amr);
  }
  return { password, code, makeAdmin, adminWithTotp, consoleAmr };
}

/** The second factor at the admin console's own sign-in (issue 25), over HTTP with real Postgres and Redis. */
describe('admin console second factor', () => {
  let server: RunningAuthServer;
  let signIn: ReturnType<typeof consoleSignIn>;

  beforeAll(async () => {
    // Two free wrong codes per user, then the back-off (the login's limit, as on the pages).
    server = await startAuthServer({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '2' });
    signIn = consoleSignIn(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('asks an admin with TOTP for a code computed from the secret; the session and the audit event say pwd+otp', async () => {
    const user = await signIn.adminWithTotp();
    const { browser, response } = await signIn.password(user.username);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(SECOND_FACTOR);
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('auth_admin_mfa='))!;
    expect(cookie).toMatch(/Path=\/admin/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=300/);
    expect(browser.cookies.has('auth_admin')).toBe(false);
    // The password alone opens nothing.
    expect((await browser.get('/admin')).headers.get('location')).toBe('/admin/console/login');

    const page = await (await browser.get(SECOND_FACTOR)).text();
    expect(page).toContain(`<strong>${user.username}</strong>`);
    expect(page).toContain(`action="${SECOND_FACTOR}"`);
    expect((await browser.post(SECOND_FACTOR, { code: totpCode(user.secret, 1) })).status).toBe(403); // no CSRF

    const challenge = browser.cookies.get('auth_admin_mfa')!;
    const done = await signIn.code(browser, totpCode(user.secret, 1));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/admin');
    expect(browser.cookies.has('auth_admin')).toBe(true);
    expect(browser.cookies.has('auth_admin_mfa')).toBe(false);
    expect((await browser.get('/admin')).status).toBe(200);
    expect(await signIn.consoleAmr(user.userId)).toEqual([['pwd', 'otp', 'mfa']]);

    const { body } = await admin(server, 'GET', '/audit-events?limit=100');
    const events = body.events as { action: string; actor: string; details: unknown }[];
    expect(events.find((e) => e.action === 'console.sign_in' && e.actor === user.username)).toMatchObject({
      details: { amr: ['pwd', 'otp', 'mfa'] },
    });
    // Used once: the challenge's cookie, presented again, finds nothing.
    const replay = new WebClient(server.url);
    replay.cookies.set('auth_admin_mfa', challenge);
    expect((await replay.get(SECOND_FACTOR)).headers.get('location')).toBe('/admin/console/login');
  });

  it('records a password sign-in as pwd for an admin without a second factor', async () => {
    const user = await createUser(server);
    await signIn.makeAdmin(user.userId);
    const { response } = await signIn.password(user.username);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/admin');
    expect(await signIn.consoleAmr(user.userId)).toEqual([['pwd']]);
  });

  it('refuses a wrong code and throttles the user’s codes, never the password step', async () => {
    const user = await signIn.adminWithTotp();
    const { browser } = await signIn.password(user.username);
    for (let i = 0; i < 3; i++) {
      const wrong = await signIn.code(browser, '000000');
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('That code is not valid.');
    }
    const throttled = await signIn.code(browser, totpCode(user.secret, 1));
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(browser.cookies.has('auth_admin')).toBe(false);
    // The password is the login's, counted apart: the owner's correct password still passes.
    const again = await signIn.password(user.username);
    expect(again.response.status).toBe(303);
    expect(again.response.headers.get('location')).toBe(SECOND_FACTOR);
  });

  it('takes each recovery code once', async () => {
    const user = await signIn.adminWithTotp();
    const first = await signIn.password(user.username);
    const done = await signIn.code(first.browser, user.recoveryCodes[0]!.toUpperCase());
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/admin');
    const second = await signIn.password(user.username);
    const reused = await signIn.code(second.browser, user.recoveryCodes[0]!);
    expect(reused.status).toBe(400);
    expect(second.browser.cookies.has('auth_admin')).toBe(false);
    expect((await signIn.code(second.browser, user.recoveryCodes[1]!)).status).toBe(303);
    expect(await signIn.consoleAmr(user.userId)).toEqual([
      ['pwd', 'otp', 'mfa'],
      ['pwd', 'otp', 'mfa'],
    ]);
  });

  it('never lets a console challenge finish a /login sign-in, nor a /login challenge the console’s', async () => {
    const user = await signIn.adminWithTotp();
    const atConsole = await signIn.password(user.username);
    const pages = new WebClient(server.url);
    expect((await signInAtLogin(pages, user.username, PASSWORD)).headers.get('location')).toBe(
      '/login/second-factor',
    );
    const { rows } = await server.pool.query<{ purpose: string }>(
      'SELECT purpose FROM mfa_challenges WHERE user_id = $1 ORDER BY purpose',
      [user.userId],
    );
    expect(rows.map((row) => row.purpose)).toEqual(['console', 'pages']);

    // The console's challenge under the pages' cookie name: /login/second-factor knows no such challenge.
    const consoleValue = atConsole.browser.cookies.get('auth_admin_mfa')!;
    const crossToPages = new WebClient(server.url);
    const login = await (await crossToPages.get('/login')).text();
    crossToPages.cookies.set('auth_mfa', consoleValue);
    expect((await crossToPages.get('/login/second-factor')).headers.get('location')).toBe('/login');
    const refusedAtPages = await crossToPages.post('/login/second-factor', {
      csrf_token: inputValue(login, 'csrf_token'),
      code: user.recoveryCodes[0]!,
    });
    expect(refusedAtPages.status).toBe(400);
    expect(crossToPages.cookies.has('auth_session')).toBe(false);

    // The pages' challenge under the console's cookie name: the console's step knows no such challenge.
    const crossToConsole = new WebClient(server.url);
    const consoleLogin = await (await crossToConsole.get('/admin/console/login')).text();
    crossToConsole.cookies.set('auth_admin_mfa', pages.cookies.get('auth_mfa')!);
    expect((await crossToConsole.get(SECOND_FACTOR)).headers.get('location')).toBe('/admin/console/login');
    const refusedAtConsole = await crossToConsole.post(SECOND_FACTOR, {
      csrf_token: inputValue(consoleLogin, 'csrf_token'),
      code: user.recoveryCodes[0]!,
    });
    expect(refusedAtConsole.status).toBe(400);
    expect(crossToConsole.cookies.has('auth_admin')).toBe(false);

    // Each finishes where it started (the recovery code was not used up by the refusals).
    expect((await signIn.code(atConsole.browser, user.recoveryCodes[0]!)).status).toBe(303);
    expect((await submitSecondFactor(pages, totpCode(user.secret, 1))).status).toBe(303);
  });
});

describe('admin console with ADMIN_CONSOLE_REQUIRE_MFA', () => {
  let server: RunningAuthServer;
  let signIn: ReturnType<typeof consoleSignIn>;

  beforeAll(async () => {
    server = await startAuthServer({ ADMIN_CONSOLE_REQUIRE_MFA: 'true' });
    signIn = consoleSignIn(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses an admin without a second factor and says where to set one up', async () => {
    const user = await createUser(server);
    await signIn.makeAdmin(user.userId);
    const { browser, response } = await signIn.password(user.username);
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(text).toMatch(/role="alert"[^>]*>The admin console requires two-step verification\./);
    expect(text).toContain('/account');
    expect(browser.cookies.has('auth_admin')).toBe(false);
    expect(await signIn.consoleAmr(user.userId)).toEqual([]);
  });

  it('lets an admin with TOTP in after the code, and no longer honours a password-only session', async () => {
    const user = await signIn.adminWithTotp();
    const { browser, response } = await signIn.password(user.username);
    expect(response.headers.get('location')).toBe(SECOND_FACTOR);
    expect((await signIn.code(browser, totpCode(user.secret, 1))).status).toBe(303);
    expect((await browser.get('/admin')).status).toBe(200);
    // A session from before the switch (password only) counts for nothing once it is on.
    await server.pool.query("UPDATE admin_console_sessions SET amr = '{pwd}' WHERE user_id = $1", [
      user.userId,
    ]);
    expect((await browser.get('/admin')).headers.get('location')).toBe('/admin/console/login');
  });
});
