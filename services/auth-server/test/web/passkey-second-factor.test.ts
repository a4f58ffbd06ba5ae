import { randomBytes } from 'node:crypto';
import { authenticator } from 'otplib';
import { assert } from '../support/soft-authenticator';
import {
  answerWithPasskey,
  csrfOf,
  postJson,
  registerPasskey,
  secondFactorOptions,
} from './support/passkey-helpers';
import { startWebServer, type WebServer } from './support/start-web-server';
import { enrolTotp } from './support/totp-helpers';
import { inputValue, WebClient } from './support/web-client';

/** WebAuthn refuses IP addresses as RP IDs: the issuer is http://localhost, the RP ID `localhost`. */
const ORIGIN = 'http://localhost';
const PASSWORD = 'second factor password';

/**
 * A passkey as the second factor after the password (issue 25): the page offers it (alone or beside a
 * code), the assertion lists only the user's passkeys and is bound to the MFA challenge row, success
 * signs in as a code does (amr pwd + hwk/swk + mfa, acr phrh/phr), and the refusals: another user's
 * credential, a replayed or expired challenge, a challenge of another sign-in, a counter regression, a
 * disabled user, CSRF; failures counted by the second-factor throttle, never the password step's.
 */
describe('passkey as the second factor', () => {
  let server: WebServer;

  beforeAll(async () => {
    server = await startWebServer({
      env: { ISSUER: ORIGIN, LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_IP: '1000' },
    });
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    // TOTP codes are computed from the real time; the server reads its fake clock.
    server.clock.now = new Date();
  });

  const auditOf = (event: string) => server.audit().filter((line) => line.event === event);

  async function passwordStep(username: string, browser = new WebClient(server.url)): Promise<Response> {
    const html = await (await browser.get('/login')).text();
    return browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: '/account',
      username,
      password: PASSWORD,
    });
  }

  /** A user who signed in with the password alone, then registered a passkey (and TOTP, if asked). */
  async function userWithPasskey(options: { totp?: boolean } = {}) {
    const username = `p2f-${Math.random().toString(36).slice(2, 10)}`;
    const userId = await server.createUser(username, PASSWORD);
    const browser = new WebClient(server.url);
    expect((await passwordStep(username, browser)).headers.get('location')).toBe('/account');
    const credential = await registerPasskey(browser, ORIGIN);
    const totp = options.totp ? await enrolTotp(browser) : undefined;
    return { username, userId, credential, totp };
  }

  /** A new browser past the password, at the second-factor page. */
  async function atSecondFactor(username: string): Promise<WebClient> {
    const browser = new WebClient(server.url);
    const response = await passwordStep(username, browser);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login/second-factor');
    return browser;
  }

  async function sessionsOf(userId: string) {
    const { rows } = await server.pool.query(
      'SELECT amr, acr FROM sessions WHERE user_id = $1 ORDER BY created_at',
      [userId],
    );
    return rows as { amr: string[]; acr: string }[];
  }

  it('asks a user whose only second factor is a passkey for it, and signs in with amr pwd+hwk+mfa, acr phrh', async () => {
    const { username, userId, credential } = await userWithPasskey();
    const browser = await atSecondFactor(username);
    const page = await (await browser.get('/login/second-factor')).text();
    expect(page).toContain('action="/login/second-factor/passkey"');
    expect(page).toContain('data-options="/login/second-factor/passkey/options"');
    expect(page).toContain('Use a passkey');
    expect(page).toMatch(/<script src="\/assets\/passkeys\.[0-9a-f]{12}\.js" defer><\/script>/);
    expect(page).not.toContain('name="code"'); // no TOTP: no code form
    // Without JavaScript the page says what is needed (passkeys.js hides the note where WebAuthn works).
    expect(page).toMatch(
      /data-passkey-unsupported>\s*Your second step is a passkey\. Using it needs JavaScript/,
    );

    const { csrf, response, options } = await secondFactorOptions(browser);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'preferred' });
    expect(options.allowCredentials.map((item) => item.id)).toEqual([credential.id.toString('base64url')]);

    const done = await answerWithPasskey(browser, csrf, assert(credential, options, ORIGIN));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/account');
    expect((await browser.get('/account')).status).toBe(200);
    expect((await sessionsOf(userId)).at(-1)).toEqual({ amr: ['pwd', 'hwk', 'mfa'], acr: 'phrh' });
    expect(auditOf('mfa.success').at(-1)).toMatchObject({
      userId,
      method: 'passkey',
      amr: ['pwd', 'hwk', 'mfa'],
      credentialId: credential.id.toString('base64url'),
    });
    // The MFA challenge is used up: the page sends the browser back to the login.
    expect((await browser.get('/login/second-factor')).headers.get('location')).toBe('/login');
  });

  it('offers both to a user with TOTP and a passkey: a code, a recovery code and the passkey each finish', async () => {
    const { username, userId, credential, totp } = await userWithPasskey({ totp: true });
    const byCode = await atSecondFactor(username);
    const page = await (await byCode.get('/login/second-factor')).text();
    expect(page).toContain('name="code"');
    expect(page).toContain('Use a passkey');
    expect(page).not.toContain('data-passkey-unsupported'); // the code works without JavaScript
    // The time step after the one enrolment used (RFC 6238 §5.2: each step once), on the server's clock.
    const { rows } = await server.pool.query('SELECT last_time_step FROM user_totp WHERE user_id = $1', [
      userId,
    ]);
    const epoch = (Number(rows[0].last_time_step) + 1) * 30_000 + 1_000;
    server.clock.now = new Date(epoch);
    const code = authenticator.clone({ epoch }).generate(totp!.secret);
    const coded = await byCode.post('/login/second-factor', {
      csrf_token: inputValue(page, 'csrf_token'),
      code,
    });
    expect(coded.status).toBe(303);

    const byRecovery = await atSecondFactor(username);
    const recovered = await byRecovery.post('/login/second-factor', {
      csrf_token: await csrfOf(byRecovery, '/login/second-factor'),
      code: totp!.recoveryCodes[0]!,
    });
    expect(recovered.status).toBe(303);

    const byPasskey = await atSecondFactor(username);
    const { csrf, options } = await secondFactorOptions(byPasskey);
    expect((await answerWithPasskey(byPasskey, csrf, assert(credential, options, ORIGIN))).status).toBe(303);
    expect((await sessionsOf(userId)).slice(-3)).toEqual([
      { amr: ['pwd', 'otp', 'mfa'], acr: 'urn:acme:acr:mfa' },
      { amr: ['pwd', 'otp', 'mfa'], acr: 'urn:acme:acr:mfa' },
      { amr: ['pwd', 'hwk', 'mfa'], acr: 'phrh' },
    ]);
  });

  it('records a synced passkey as swk, acr phr', async () => {
    const username = `p2f-${Math.random().toString(36).slice(2, 10)}`;
    const userId = await server.createUser(username, PASSWORD);
    const first = new WebClient(server.url);
    await passwordStep(username, first);
    const credential = await registerPasskey(first, ORIGIN, { synced: true });
    const browser = await atSecondFactor(username);
    const { csrf, options } = await secondFactorOptions(browser);
    const answer = assert(credential, options, ORIGIN, { flags: 0x01 | 0x04 | 0x08 });
    expect((await answerWithPasskey(browser, csrf, answer)).status).toBe(303);
    expect((await sessionsOf(userId)).at(-1)).toEqual({ amr: ['pwd', 'swk', 'mfa'], acr: 'phr' });
  });

  it("refuses another user's passkey, counts it in the second-factor throttle and not the password step's", async () => {
    const victim = await userWithPasskey();
    const other = await userWithPasskey();
    const browser = await atSecondFactor(victim.username);
    const foreign = async () => {
      const { csrf, options } = await secondFactorOptions(browser);
      // The other user's key signs the victim's challenge (a hostile client ignores allowCredentials).
      return answerWithPasskey(browser, csrf, assert(other.credential, options, ORIGIN));
    };
    const first = await foreign();
    expect(first.status).toBe(400);
    expect(await first.text()).toContain('Your passkey could not be used. Try again.');
    expect(browser.cookies.has('auth_session')).toBe(false);
    expect(auditOf('mfa.failure').at(-1)).toMatchObject({
      userId: victim.userId,
      method: 'passkey',
      reason: 'unknown_credential',
      credentialId: other.credential.id.toString('base64url'),
    });
    for (let i = 0; i < 2; i++) expect((await foreign()).status).toBe(400);
    // The good answer is ready before the failure that starts the back-off (1 s): no race with it.
    const { csrf, options } = await secondFactorOptions(browser);
    const good = assert(victim.credential, options, ORIGIN);
    expect((await answerWithPasskey(browser, csrf, '{"not":"a credential"}')).status).toBe(400);
    // Past the free failures the victim's own passkey waits too (the account-wide bound of this step)…
    const throttled = await answerWithPasskey(browser, csrf, good);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(auditOf('mfa.throttled').at(-1)).toMatchObject({ userId: victim.userId });
    // …but the password step is not slowed: its counters never saw these failures.
    const again = await passwordStep(victim.username);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/login/second-factor');
    expect(auditOf('login.throttled').filter((line) => line.username === victim.username)).toEqual([]);
  });

  it('refuses a replayed challenge: used up by the first answer, whatever its outcome', async () => {
    const { username, credential } = await userWithPasskey();
    const browser = await atSecondFactor(username);
    const { csrf, options } = await secondFactorOptions(browser);
    const good = assert(credential, options, ORIGIN);
    const phished = assert(credential, options, ORIGIN, { origin: 'http://localhost.evil.example' });
    const refused = await answerWithPasskey(browser, csrf, phished);
    expect(refused.status).toBe(400);
    expect(auditOf('mfa.failure').at(-1)).toMatchObject({ reason: 'invalid' });
    // The challenge went with the first answer: a correct one for it is now worth nothing.
    expect((await answerWithPasskey(browser, csrf, good)).status).toBe(400);
    expect(auditOf('mfa.failure').at(-1)).toMatchObject({ reason: 'challenge' });
    expect(browser.cookies.has('auth_session')).toBe(false);
  });

  it('binds the challenge to the MFA challenge row: one from an earlier sign-in, or after success, is refused', async () => {
    const { username, credential } = await userWithPasskey();
    const browser = await atSecondFactor(username);
    const earlier = await secondFactorOptions(browser);
    // The password again in the same browser: a new row, a new cookie.
    await passwordStep(username, browser);
    const csrf = await csrfOf(browser, '/login/second-factor');
    const stale = await answerWithPasskey(browser, csrf, assert(credential, earlier.options, ORIGIN));
    expect(stale.status).toBe(400);
    expect(auditOf('mfa.failure').at(-1)).toMatchObject({ reason: 'challenge' });

    // A successful answer, replayed by a copy of the browser's cookies from before: the row is gone.
    const { options } = await secondFactorOptions(browser);
    const answer = assert(credential, options, ORIGIN);
    const copy = new WebClient(server.url);
    for (const [name, value] of browser.cookies) copy.cookies.set(name, value);
    expect((await answerWithPasskey(browser, csrf, answer)).status).toBe(303);
    const replay = await answerWithPasskey(copy, csrf, answer);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('This sign-in took too long or was finished already.');
  });

  it('refuses an expired challenge: it lives no longer than the MFA challenge (5 minutes)', async () => {
    const { username, userId, credential } = await userWithPasskey();
    const browser = await atSecondFactor(username);
    server.clock.advance(60);
    const { csrf, options } = await secondFactorOptions(browser);
    const { rows } = await server.pool.query(
      `SELECT p.expires_at = m.expires_at AS same FROM passkey_challenges p, mfa_challenges m
        WHERE p.user_id = $1 AND m.user_id = $1`,
      [userId],
    );
    expect(rows).toEqual([{ same: true }]);
    expect(options.timeout).toBe(300_000);
    server.clock.advance(241);
    const late = await answerWithPasskey(browser, csrf, assert(credential, options, ORIGIN));
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('This sign-in took too long or was finished already.');
    expect(browser.cookies.has('auth_session')).toBe(false);
  });

  it('refuses a counter that does not grow (a cloned key) and audits it as the passkey sign-in does', async () => {
    const { username, userId, credential } = await userWithPasskey();
    const first = await atSecondFactor(username);
    const one = await secondFactorOptions(first);
    const forward = assert(credential, one.options, ORIGIN, { signCount: 7 });
    expect((await answerWithPasskey(first, one.csrf, forward)).status).toBe(303);
    const second = await atSecondFactor(username);
    const two = await secondFactorOptions(second);
    const same = assert(credential, two.options, ORIGIN, { signCount: 7 });
    expect((await answerWithPasskey(second, two.csrf, same)).status).toBe(400);
    expect(auditOf('passkey.sign_count_regression').at(-1)).toMatchObject({
      userId,
      reason: 'cloned',
      method: 'passkey',
      credentialId: credential.id.toString('base64url'),
    });
    const { rows } = await server.pool.query('SELECT sign_count FROM passkeys WHERE credential_id = $1', [
      credential.id,
    ]);
    expect(rows).toEqual([{ sign_count: '7' }]);
  });

  it('refuses a user disabled between the password and the passkey', async () => {
    const { username, userId, credential } = await userWithPasskey();
    const browser = await atSecondFactor(username);
    const { csrf, options } = await secondFactorOptions(browser);
    await server.pool.query('UPDATE users SET disabled_at = now() WHERE user_id = $1', [userId]);
    const response = await answerWithPasskey(browser, csrf, assert(credential, options, ORIGIN));
    expect(response.status).toBe(400);
    expect(browser.cookies.has('auth_session')).toBe(false);
    const late = await postJson(browser, '/login/second-factor/passkey/options', { csrf_token: csrf });
    expect(late.status).toBe(400);
  });

  it('needs the CSRF token and a pending second step; bounds the body', async () => {
    const { username, credential } = await userWithPasskey();
    const browser = await atSecondFactor(username);
    expect((await postJson(browser, '/login/second-factor/passkey/options', {})).status).toBe(403);
    const { csrf, options } = await secondFactorOptions(browser);
    const answer = assert(credential, options, ORIGIN);
    expect((await answerWithPasskey(browser, 'wrong', answer)).status).toBe(403);
    expect((await answerWithPasskey(browser, csrf, 'x'.repeat(40_000))).status).toBe(400);
    expect((await answerWithPasskey(browser, csrf, '{"id":1}')).status).toBe(400);
    // A browser that never passed the password has no second step to answer.
    const stranger = new WebClient(server.url);
    const strangerCsrf = await csrfOf(stranger, '/login');
    const none = await postJson(stranger, '/login/second-factor/passkey/options', {
      csrf_token: strangerCsrf,
    });
    expect(none.status).toBe(400);
  });
});

describe('passkey as the second factor on an issuer whose host is an IP address', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({ env: { ISSUER: 'http://127.0.0.1' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  /** A passkey made elsewhere (the same users on a domain issuer): WebAuthn cannot check it here. */
  async function addPasskeyRow(userId: string): Promise<void> {
    await server.pool.query(
      `INSERT INTO passkeys (credential_id, user_id, user_handle, public_key, name, aaguid, backup_eligible, backed_up)
       VALUES ($1, $2, $3, $4, 'Laptop', '', false, false)`,
      [randomBytes(32), userId, randomBytes(32), randomBytes(77)],
    );
  }

  async function passwordStep(username: string): Promise<{ browser: WebClient; response: Response }> {
    const browser = new WebClient(server.url);
    const html = await (await browser.get('/login')).text();
    const response = await browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: '/account',
      username,
      password: PASSWORD,
    });
    return { browser, response };
  }

  it('still owes the second step when the passkey is the only factor, and says why it cannot be given here', async () => {
    const username = `ip-${Math.random().toString(36).slice(2, 10)}`;
    await addPasskeyRow(await server.createUser(username, PASSWORD));
    const { browser, response } = await passwordStep(username);
    // Never the password alone: that would let anyone holding it past a factor the owner set up.
    expect(response.headers.get('location')).toBe('/login/second-factor');
    expect(browser.cookies.has('auth_session')).toBe(false);
    const page = await (await browser.get('/login/second-factor')).text();
    expect(page).toContain('Your second step is a passkey, and passkeys cannot be used at this address.');
    expect(page).not.toContain('<script');
    expect(page).not.toContain('<form method="post" action="/login/second-factor');
    // No passkey route here at all (the page has no form, so the token comes from the login page).
    const options = await postJson(browser, '/login/second-factor/passkey/options', {
      csrf_token: await csrfOf(browser, '/login'),
    });
    expect(options.status).toBe(404);
  });

  it('offers only the code to a user with TOTP and a passkey', async () => {
    const username = `ip-${Math.random().toString(36).slice(2, 10)}`;
    const userId = await server.createUser(username, PASSWORD);
    const { browser } = await passwordStep(username);
    server.clock.now = new Date();
    await enrolTotp(browser);
    await addPasskeyRow(userId);
    const next = await passwordStep(username);
    expect(next.response.headers.get('location')).toBe('/login/second-factor');
    const page = await (await next.browser.get('/login/second-factor')).text();
    expect(page).toContain('name="code"');
    expect(page).not.toContain('Use a passkey');
    expect(page).not.toContain('/login/second-factor/passkey');
    expect(page).not.toContain('<script');
  });
});
