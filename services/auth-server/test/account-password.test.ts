import nock from 'nock';
import { waitFor } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createUser } from './support/oauth-helpers';
import {
  PASSWORD,
  registerBackchannelRp,
  signInThroughClient,
  silentAuthorize,
} from './support/logout-helpers';
import { FIREFOX_LINUX, SAFARI_IPHONE, UserAgentClient } from './support/user-agent-client';
import { inputValue, WebClient } from './web/support/web-client';

/**
 * The account page's password change over HTTP on real Postgres: NIST SP 800-63B length policy, the
 * current password checked and throttled like a login, the OTHER sessions ended with back-channel logout
 * (nock stands in for the RP), this one kept, the old password refused afterwards.
 */
describe('account page: change password', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret: string };

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    server = await startAuthServer({
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '2',
      BACKCHANNEL_LOGOUT_RETRY_BASE_MS: '1000',
    });
    client = await registerBackchannelRp(server);
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await server.stop();
    nock.enableNetConnect();
  });

  async function passwordForm(browser: WebClient) {
    const account = await browser.get('/account');
    expect(account.status).toBe(200);
    return inputValue(await account.text(), 'csrf_token');
  }

  async function change(browser: WebClient, current: string, next: string, again = next) {
    return browser.post('/account/password', {
      csrf_token: await passwordForm(browser),
      current_password: current,
      new_password: next,
      new_password_confirm: again,
    });
  }

  async function login(username: string, password: string): Promise<number> {
    const browser = new WebClient(server.url);
    const page = await (await browser.get('/login')).text();
    const response = await browser.post('/login', {
      csrf_token: inputValue(page, 'csrf_token'),
      return_to: '/account',
      username,
      password,
    });
    return response.status;
  }

  const storedHash = async (userId: string) =>
    (
      await server.pool.query<{ password_hash: string }>(
        'SELECT password_hash FROM users WHERE user_id = $1',
        [userId],
      )
    ).rows[0]!.password_hash;

  it('refuses a new password against the policy, saying why, and changes nothing', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInThroughClient(server, browser, client, user.username);
    const before = await storedHash(user.userId);
    const cases: [string, string, string][] = [
      ['seven77', 'seven77', 'Choose a new password of at least 8 characters.'],
      ['a fine new password', 'a fine new passw0rd', 'The two new passwords are not the same.'],
      [
        user.username.toUpperCase(),
        user.username.toUpperCase(),
        'Your new password cannot be your username.',
      ],
      ['x'.repeat(1025), 'x'.repeat(1025), 'That new password is too long.'],
    ];
    for (const [next, again, message] of cases) {
      const response = await change(browser, PASSWORD, next, again);
      expect(response.status).toBe(400);
      const html = await response.text();
      expect(html).toContain(`<p role="alert" class="alert" id="password-error">${message}</p>`);
      expect(html).toMatch(/id="new_password_confirm"[^>]*aria-invalid="true"/);
    }
    expect(await storedHash(user.userId)).toBe(before);
    // No composition rules (NIST SP 800-63B §5.1.1.2): eight of one letter, or long with spaces, are fine.
    expect((await change(browser, PASSWORD, 'aaaaaaaa')).status).toBe(303);
    expect((await change(browser, 'aaaaaaaa', `${'long pass phrase '.repeat(7)}ü`)).status).toBe(303);
  });

  it('refuses a wrong current password, counts it like a failed login, and throttles with 429', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInThroughClient(server, browser, client, user.username);
    const before = await storedHash(user.userId);
    // LOGIN_MAX_FAILURES_PER_ACCOUNT (2) free failures, then each one more makes the account wait here.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const wrong = await change(browser, 'not my password', 'a brand new password');
      expect(wrong.status).toBe(400);
      const html = await wrong.text();
      expect(html).toContain('Your current password is not correct.');
      expect(html).toMatch(/id="current_password"[^>]*aria-invalid="true"/);
    }
    // Now the account waits at this address: even the right password is not checked.
    const throttled = await change(browser, PASSWORD, 'a brand new password');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await throttled.text()).toContain('Too many wrong passwords.');
    // The same counter as the login's: failed sign-ins make the change wait too.
    const other = await createUser(server);
    const otherBrowser = new WebClient(server.url);
    await signInThroughClient(server, otherBrowser, client, other.username);
    let status = 0;
    for (let attempt = 0; attempt < 5 && status !== 429; attempt += 1)
      status = await login(other.username, `wrong ${attempt}`);
    expect(status).toBe(429);
    expect((await change(otherBrowser, PASSWORD, 'a brand new password')).status).toBe(429);
    expect(await storedHash(user.userId)).toBe(before);
  });

  it('without CSRF or a session changes nothing', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInThroughClient(server, browser, client, user.username);
    const fields = {
      current_password: PASSWORD,
      new_password: 'another password',
      new_password_confirm: 'another password',
    };
    expect((await browser.post('/account/password', fields)).status).toBe(403);
    const stranger = await new WebClient(server.url).post('/account/password', fields);
    expect([303, 403]).toContain(stranger.status);
    expect(await login(user.username, PASSWORD)).toBe(303);
  });

  it('changes it: argon2id, the other sessions end with back-channel logout, this one stays, the old password is refused', async () => {
    const user = await createUser(server);
    const laptop = new UserAgentClient(server.url, FIREFOX_LINUX);
    const phone = new UserAgentClient(server.url, SAFARI_IPHONE);
    const here = await signInThroughClient(server, laptop, client, user.username);
    const there = await signInThroughClient(server, phone, client, user.username);
    const bodies: string[] = [];
    const rp = nock('https://rp.example')
      .post('/backchannel', (body: Record<string, string>) => {
        bodies.push(body.logout_token!);
        return true;
      })
      .reply(204);

    const done = await change(laptop, PASSWORD, 'a much better passphrase');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/account?password=changed');
    const account = await laptop.get(done.headers.get('location')!);
    expect(account.status).toBe(200);
    expect(await account.text()).toContain(
      '<p role="status" class="notice">Your password was changed. Your other sessions were signed out.</p>',
    );
    expect(await silentAuthorize(laptop, client.clientId)).toBe('code');
    expect(await silentAuthorize(phone, client.clientId)).toBe('login_required');
    expect((await phone.get('/account')).status).toBe(303);

    await waitFor(async () => rp.isDone(), 8000);
    expect(bodies).toHaveLength(1);
    const logoutToken = JSON.parse(Buffer.from(bodies[0]!.split('.')[1]!, 'base64url').toString()) as {
      sid: string;
      sub: string;
    };
    expect(logoutToken).toMatchObject({ sid: there.claims.sid, sub: user.userId });
    expect(logoutToken.sid).not.toBe(here.claims.sid);

    expect(await storedHash(user.userId)).toMatch(/^\$argon2id\$v=19\$m=19456,(t=2,p=1|p=1,t=2)\$/);
    expect(await login(user.username, PASSWORD)).toBe(400);
    expect(await login(user.username, 'a much better passphrase')).toBe(303);
  });
});
