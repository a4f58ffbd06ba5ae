import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { basic, createClient, createUser, postForm } from '../support/oauth-helpers';
import { codeFlowPages, submitPassword } from './support/code-flow-pages';
import {
  shownSecret,
  signInAtLogin,
  submitSecondFactor,
  totpCode,
  userWithTotp,
} from './support/totp-helpers';
import { inputValue, WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery';
const MFA = { amr: ['pwd', 'otp', 'mfa'], acr: 'urn:acme:acr:mfa' };

/** TOTP (RFC 6238) as a second factor through the real pages. */
describe('multi-factor sign-in with TOTP', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  beforeAll(async () => {
    // Two free wrong codes per user, then the back-off (the login's limit, counted apart).
    server = await startAuthServer({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '2' });
    client = await createClient(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('stores the secret sealed and the recovery codes as keyed hashes', async () => {
    const user = await userWithTotp(server);
    expect(user.recoveryCodes).toHaveLength(10);
    const { rows } = await server.pool.query(
      'SELECT secret_ciphertext, confirmed_at, last_time_step FROM user_totp WHERE user_id = $1',
      [user.userId],
    );
    expect(rows[0].confirmed_at).toBeInstanceOf(Date);
    expect(rows[0].secret_ciphertext).not.toContain(user.secret);
    expect(Buffer.from(rows[0].secret_ciphertext, 'base64').includes(Buffer.from(user.secret))).toBe(false);
    const codes = await server.pool.query('SELECT code_hash FROM recovery_codes WHERE user_id = $1', [
      user.userId,
    ]);
    expect(codes.rows).toHaveLength(10);
    for (const row of codes.rows) expect((row.code_hash as Buffer).length).toBe(32);
  });

  it('serves the QR code as our own SVG, no-store, to the enrolling session only while enrolment is pending', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    expect((await browser.get('/account/totp/qr.svg')).status).toBe(404);
    const page = await (await browser.get('/account/totp')).text();
    await browser.post('/account/totp/start', { csrf_token: inputValue(page, 'csrf_token') });
    const qr = await browser.get('/account/totp/qr.svg');
    expect(qr.status).toBe(200);
    expect(qr.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(qr.headers.get('cache-control')).toBe('no-store');
    expect(await qr.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect((await new WebClient(server.url).get('/account/totp/qr.svg')).status).toBe(404);
    const pending = await (await browser.get('/account/totp')).text();
    await browser.post('/account/totp/activate', {
      csrf_token: inputValue(pending, 'csrf_token'),
      code: totpCode(shownSecret(pending)),
    });
    expect((await browser.get('/account/totp/qr.svg')).status).toBe(404);
    const second = await browser.get('/login/second-factor');
    expect(second.status).toBe(303); // no challenge in this browser
  });

  it('asks for the code after the password; the ID token, and the one issued on refresh, say pwd+otp', async () => {
    const user = await userWithTotp(server);
    const browser = new WebClient(server.url);
    const flow = codeFlowPages(server, client);
    const afterPassword = await submitPassword(
      browser,
      await browser.get(flow.path),
      user.username,
      PASSWORD,
    );
    expect(afterPassword.status).toBe(303);
    expect(afterPassword.headers.get('location')).toBe('/login/second-factor');
    expect(browser.cookies.has('auth_session')).toBe(false); // no session before the second factor
    expect(browser.cookies.has('auth_mfa')).toBe(true);

    const { token, idToken } = await flow.redeem(
      await flow.follow(browser, await submitSecondFactor(browser, totpCode(user.secret, 1))),
    );
    expect(idToken).toMatchObject(MFA);
    expect(browser.cookies.has('auth_mfa')).toBe(false);

    const refreshed = await postForm(
      `${server.url}/token`,
      { grant_type: 'refresh_token', refresh_token: token.refresh_token as string },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(jwt.decode(refreshed.body.id_token as string)).toMatchObject({
      ...MFA,
      auth_time: idToken.auth_time,
    });
  });

  it('refuses a code whose time step was used already (RFC 6238 §5.2), then the next step once', async () => {
    const user = await userWithTotp(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    // The activation's code, replayed (its step may be the current or the previous one by now).
    const replay = await submitSecondFactor(browser, user.activationCode);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('That code is not valid.');
    const next = await submitSecondFactor(browser, totpCode(user.secret, 1));
    expect(next.status).toBe(303);
    expect(browser.cookies.has('auth_session')).toBe(true);

    const other = new WebClient(server.url);
    await signInAtLogin(other, user.username, PASSWORD);
    expect((await submitSecondFactor(other, totpCode(user.secret, 1))).status).toBe(400);
    expect(other.cookies.has('auth_session')).toBe(false);
  });

  it('throttles wrong codes per user without locking the password step', async () => {
    const user = await userWithTotp(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    for (let i = 0; i < 3; i++) expect((await submitSecondFactor(browser, '000000')).status).toBe(400);
    const throttled = await submitSecondFactor(browser, totpCode(user.secret, 1));
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(browser.cookies.has('auth_session')).toBe(false);
    // The password step is the login's, with counters of its own: still open.
    const again = await signInAtLogin(new WebClient(server.url), user.username, PASSWORD);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/login/second-factor');
  });

  it('accepts each recovery code once', async () => {
    const user = await userWithTotp(server);
    const code = user.recoveryCodes[0]!;
    const first = new WebClient(server.url);
    await signInAtLogin(first, user.username, PASSWORD);
    const used = await submitSecondFactor(first, code.toUpperCase());
    expect(used.status).toBe(303);
    expect(first.cookies.has('auth_session')).toBe(true);
    const second = new WebClient(server.url);
    await signInAtLogin(second, user.username, PASSWORD);
    expect((await submitSecondFactor(second, code)).status).toBe(400);
    expect(second.cookies.has('auth_session')).toBe(false);
    const { rows } = await server.pool.query(
      'SELECT count(*)::int AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL',
      [user.userId],
    );
    expect(rows[0].n).toBe(9);
  });

  it('turns TOTP off only with a current code or the password', async () => {
    const user = await userWithTotp(server);
    const page = await (await user.browser.get('/account/totp')).text();
    const csrf = inputValue(page, 'csrf_token');
    const wrong = await user.browser.post('/account/totp/disable', {
      csrf_token: csrf,
      code: 'not my password',
    });
    expect(wrong.status).toBe(400);
    const off = await user.browser.post('/account/totp/disable', { csrf_token: csrf, code: PASSWORD });
    expect(off.status).toBe(303);
    const { rows } = await server.pool.query('SELECT 1 FROM user_totp WHERE user_id = $1', [user.userId]);
    expect(rows).toHaveLength(0);
    const next = await signInAtLogin(new WebClient(server.url), user.username, PASSWORD);
    expect(next.headers.get('location')).toBe('/account');
  });
});
