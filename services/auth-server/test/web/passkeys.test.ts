import { assert, createCredential, type SoftCredential } from '../support/soft-authenticator';
import { startWebServer, type WebServer } from './support/start-web-server';
import { inputValue, WebClient } from './support/web-client';

/** WebAuthn refuses IP addresses as RP IDs: the issuer is http://localhost, the RP ID `localhost`. */
const ORIGIN = 'http://localhost';

interface CreationOptions {
  challenge: string;
  rp: { id: string; name: string };
  user: { id: string; name: string };
  authenticatorSelection: { residentKey: string; userVerification: string };
  excludeCredentials: { id: string }[];
}
interface RequestOptions {
  challenge: string;
  rpId: string;
  userVerification: string;
  allowCredentials: unknown[];
}

/**
 * Passkeys over HTTP with an authenticator in the test (soft-authenticator.ts): registration from the
 * account page, usernameless sign-in, and the refusals WebAuthn L3 §7.1/§7.2 ask of a relying party that a
 * real browser would never let a test provoke (another origin, a replayed or foreign challenge, a counter
 * that does not grow, no user verification), with CSRF, bounds, the per-user limit and throttling.
 */
describe('passkeys over HTTP', () => {
  let server: WebServer;
  const password = 'passkey test password';

  beforeAll(async () => {
    server = await startWebServer({
      env: { ISSUER: ORIGIN, LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_IP: '1000' },
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function newUser(): Promise<{ username: string; userId: string }> {
    const username = `pk-${Math.random().toString(36).slice(2, 10)}`;
    return { username, userId: await server.createUser(username, password) };
  }

  async function signIn(username: string): Promise<WebClient> {
    const browser = new WebClient(server.url);
    const html = await (await browser.get('/login')).text();
    const response = await browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: '/account',
      username,
      password,
    });
    expect(response.status).toBe(303);
    return browser;
  }

  /** A JSON POST with the browser's cookies (WebClient posts forms). */
  async function postJson(browser: WebClient, path: string, body: unknown): Promise<Response> {
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return fetch(new URL(path, server.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
  }

  async function csrfOf(browser: WebClient, path: string): Promise<string> {
    return inputValue(await (await browser.get(path)).text(), 'csrf_token');
  }

  async function register(
    browser: WebClient,
    name = 'Laptop',
  ): Promise<{ credential: SoftCredential; response: Response }> {
    const csrf = await csrfOf(browser, '/account');
    const options = await postJson(browser, '/account/passkeys/options', { csrf_token: csrf });
    expect(options.status).toBe(200);
    const created = createCredential((await options.json()) as CreationOptions, ORIGIN);
    const response = await browser.post('/account/passkeys', {
      csrf_token: csrf,
      name,
      credential: JSON.stringify(created.response),
    });
    return { credential: created.credential, response };
  }

  /** A fresh browser at the login page asks for request options; returns them with the browser and token. */
  async function startSignIn(): Promise<{ browser: WebClient; csrf: string; options: RequestOptions }> {
    const browser = new WebClient(server.url);
    const csrf = await csrfOf(browser, '/login');
    const response = await postJson(browser, '/login/passkey/options', { csrf_token: csrf });
    expect(response.status).toBe(200);
    return { browser, csrf, options: (await response.json()) as RequestOptions };
  }

  function finishSignIn(browser: WebClient, csrf: string, credential: unknown, returnTo = '/account') {
    return browser.post('/login/passkey', {
      csrf_token: csrf,
      return_to: returnTo,
      credential: typeof credential === 'string' ? credential : JSON.stringify(credential),
    });
  }

  const auditOf = (event: string) => server.audit().filter((line) => line.event === event);

  it('registers a passkey from the account page: discoverable, user verification required, listed', async () => {
    const { username, userId } = await newUser();
    const browser = await signIn(username);
    const csrf = await csrfOf(browser, '/account');
    const optionsResponse = await postJson(browser, '/account/passkeys/options', { csrf_token: csrf });
    expect(optionsResponse.headers.get('cache-control')).toBe('no-store');
    const options = (await optionsResponse.json()) as CreationOptions;
    expect(options.rp).toEqual({ id: 'localhost', name: 'localhost' });
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    });
    expect(options.user.name).toBe(username);
    // The user handle is opaque: not the user id (the OIDC sub).
    expect(Buffer.from(options.user.id, 'base64url').toString('hex')).not.toContain(userId.replace(/-/g, ''));

    const created = createCredential(options, ORIGIN);
    const response = await browser.post('/account/passkeys', {
      csrf_token: csrf,
      name: 'Work <laptop>',
      credential: JSON.stringify(created.response),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/account?passkey=added#passkeys');
    const { rows } = await server.pool.query(
      'SELECT user_id, name, sign_count, transports, user_handle FROM passkeys WHERE credential_id = $1',
      [created.credential.id],
    );
    expect(rows).toEqual([
      {
        user_id: userId,
        name: 'Work <laptop>',
        sign_count: '0',
        transports: ['internal'],
        user_handle: Buffer.from(options.user.id, 'base64url'),
      },
    ]);
    const page = await (await browser.get('/account?passkey=added')).text();
    expect(page).toContain('<h3>Work &lt;laptop&gt;</h3>');
    expect(page).toContain('Passkey added.');
    expect(page).toContain('Not used yet.');
    expect(page).toMatch(/<script src="\/assets\/passkeys\.[0-9a-f]{12}\.js" defer><\/script>/);
    expect(auditOf('passkey.registered').at(-1)).toMatchObject({
      userId,
      credentialId: created.credential.id.toString('base64url'),
    });
    // The next options exclude it (one passkey per authenticator).
    const again = (await (
      await postJson(browser, '/account/passkeys/options', { csrf_token: csrf })
    ).json()) as CreationOptions;
    expect(again.excludeCredentials.map((item) => item.id)).toEqual([
      created.credential.id.toString('base64url'),
    ]);
  });

  it('signs in with the passkey alone (usernameless) and continues to return_to with a new session', async () => {
    const { username, userId } = await newUser();
    const { credential } = await register(await signIn(username));
    const { browser, csrf, options } = await startSignIn();
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required', allowCredentials: [] });
    const response = await finishSignIn(browser, csrf, assert(credential, options, ORIGIN));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/account');
    const account = await browser.get('/account');
    expect(account.status).toBe(200);
    expect(await account.text()).toContain(`<strong>${username}</strong>`);
    const { rows } = await server.pool.query(
      'SELECT sign_count, last_used_at IS NOT NULL AS used FROM passkeys WHERE credential_id = $1',
      [credential.id],
    );
    expect(rows).toEqual([{ sign_count: '1', used: true }]);
    // The session records how: a device-bound key, presence, user verification (RFC 8176).
    const sessions = await server.pool.query(
      'SELECT amr, acr FROM sessions WHERE user_id = $1 ORDER BY created_at',
      [userId],
    );
    expect(sessions.rows).toEqual([
      { amr: ['pwd'], acr: 'urn:acme:acr:1fa' }, // the password sign-in that registered it
      { amr: ['hwk', 'user', 'mfa'], acr: 'phrh' },
    ]);
    expect(auditOf('passkey.login.success').at(-1)).toMatchObject({
      userId,
      username,
      amr: ['hwk', 'user', 'mfa'],
    });
  });

  it('keeps an /authorize return_to and adds the login mark, as a password login does', async () => {
    const { username } = await newUser();
    const { credential } = await register(await signIn(username));
    const { browser, csrf, options } = await startSignIn();
    const returnTo = '/authorize?client_id=photo&state=s1';
    const response = await finishSignIn(browser, csrf, assert(credential, options, ORIGIN), returnTo);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(
      /^\/authorize\?client_id=photo&state=s1&login_mark=[\w-]+$/,
    );
  });

  it('refuses an assertion made for another origin (phishing site), with no session', async () => {
    const { username, userId } = await newUser();
    const { credential } = await register(await signIn(username));
    const { browser, csrf, options } = await startSignIn();
    const response = await finishSignIn(
      browser,
      csrf,
      assert(credential, options, ORIGIN, { origin: 'http://localhost.evil.example' }),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Your passkey could not be used.');
    expect(browser.cookies.has('auth_session')).toBe(false);
    expect(auditOf('passkey.login.failure').at(-1)).toMatchObject({ reason: 'invalid', userId });
  });

  it('refuses a replayed assertion: the challenge is used up by the first answer', async () => {
    const { username } = await newUser();
    const { credential } = await register(await signIn(username));
    const { browser, csrf, options } = await startSignIn();
    const answer = assert(credential, options, ORIGIN);
    expect((await finishSignIn(browser, csrf, answer)).status).toBe(303);
    // The same answer again, from a browser that still has the login page's cookies.
    const replayer = new WebClient(server.url);
    for (const [name, value] of browser.cookies)
      if (name !== 'auth_session') replayer.cookies.set(name, value);
    const replay = await finishSignIn(replayer, csrf, answer);
    expect(replay.status).toBe(400);
    expect(auditOf('passkey.login.failure').at(-1)).toMatchObject({ reason: 'challenge' });
  });

  it('refuses a challenge fetched by another browser (bound to the cookies it was issued to)', async () => {
    const { username } = await newUser();
    const { credential } = await register(await signIn(username));
    const issued = await startSignIn();
    // Another browser, at the login page with its own cookies and token, answers the first one's challenge.
    const other = new WebClient(server.url);
    const otherCsrf = await csrfOf(other, '/login');
    const response = await finishSignIn(other, otherCsrf, assert(credential, issued.options, ORIGIN));
    expect(response.status).toBe(400);
    expect(auditOf('passkey.login.failure').at(-1)).toMatchObject({ reason: 'challenge' });
    // The first browser still can.
    const own = await finishSignIn(issued.browser, issued.csrf, assert(credential, issued.options, ORIGIN));
    expect(own.status).toBe(303);
  });

  it('refuses an expired challenge', async () => {
    const { username } = await newUser();
    const { credential } = await register(await signIn(username));
    const { browser, csrf, options } = await startSignIn();
    server.clock.advance(301);
    const response = await finishSignIn(browser, csrf, assert(credential, options, ORIGIN));
    expect(response.status).toBe(400);
    expect(auditOf('passkey.login.failure').at(-1)).toMatchObject({ reason: 'challenge' });
  });

  it('refuses a sign-in without user verification (the passkey replaces the password)', async () => {
    const { username } = await newUser();
    const { credential } = await register(await signIn(username));
    const { browser, csrf, options } = await startSignIn();
    const response = await finishSignIn(browser, csrf, assert(credential, options, ORIGIN, { flags: 0x01 }));
    expect(response.status).toBe(400);
  });

  it('refuses a counter that does not grow (a cloned authenticator) and audits it', async () => {
    const { username, userId } = await newUser();
    const { credential } = await register(await signIn(username));
    const first = await startSignIn();
    const forward = assert(credential, first.options, ORIGIN, { signCount: 5 });
    expect((await finishSignIn(first.browser, first.csrf, forward)).status).toBe(303);
    // The same counter again, properly signed: the key exists twice.
    const second = await startSignIn();
    const same = assert(credential, second.options, ORIGIN, { signCount: 5 });
    expect((await finishSignIn(second.browser, second.csrf, same)).status).toBe(400);
    const { rows } = await server.pool.query('SELECT sign_count FROM passkeys WHERE credential_id = $1', [
      credential.id,
    ]);
    expect(rows[0].sign_count).toBe('5');
    expect(auditOf('passkey.sign_count_regression').at(-1)).toMatchObject({ userId, reason: 'cloned' });
    // A lower one too.
    const { browser, csrf, options } = await startSignIn();
    expect(
      (await finishSignIn(browser, csrf, assert(credential, options, ORIGIN, { signCount: 3 }))).status,
    ).toBe(400);
  });

  it('refuses the passkey of a disabled user', async () => {
    const { username, userId } = await newUser();
    const { credential } = await register(await signIn(username));
    await server.pool.query('UPDATE users SET disabled_at = now() WHERE user_id = $1', [userId]);
    const { browser, csrf, options } = await startSignIn();
    const response = await finishSignIn(browser, csrf, assert(credential, options, ORIGIN));
    expect(response.status).toBe(400);
    expect(auditOf('passkey.login.failure').at(-1)).toMatchObject({ reason: 'unknown_credential' });
  });

  it("resetMfa (admin API) removes the user's passkeys, and they stop working", async () => {
    const { username, userId } = await newUser();
    const { credential } = await register(await signIn(username));
    const reset = await fetch(`${server.url}/admin/users/${userId}/mfa/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}` },
    });
    expect(reset.status).toBe(200);
    expect(await reset.json()).toMatchObject({ user_id: userId, passkeys_removed: 1 });
    const { rows } = await server.pool.query('SELECT 1 FROM passkeys WHERE user_id = $1', [userId]);
    expect(rows).toEqual([]);
    const { browser, csrf, options } = await startSignIn();
    expect((await finishSignIn(browser, csrf, assert(credential, options, ORIGIN))).status).toBe(400);
  });

  it('refuses an assertion whose userHandle names someone else', async () => {
    const { username } = await newUser();
    const { credential } = await register(await signIn(username));
    const { browser, csrf, options } = await startSignIn();
    const response = await finishSignIn(
      browser,
      csrf,
      assert(credential, options, ORIGIN, { userHandle: Buffer.alloc(32, 7).toString('base64url') }),
    );
    expect(response.status).toBe(400);
  });

  it('deleting a passkey stops it working; renaming and deleting need the CSRF token and the owner', async () => {
    const { username } = await newUser();
    const owner = await signIn(username);
    const { credential } = await register(owner);
    const id = credential.id.toString('base64url');
    const stranger = await signIn((await newUser()).username);
    const strangerCsrf = await csrfOf(stranger, '/account');
    const notOwner = await stranger.post('/account/passkeys/delete', {
      csrf_token: strangerCsrf,
      credential_id: id,
    });
    expect(notOwner.status).toBe(404);
    expect((await owner.post('/account/passkeys/delete', { credential_id: id })).status).toBe(403);

    const csrf = await csrfOf(owner, '/account');
    const renamed = await owner.post('/account/passkeys/rename', {
      csrf_token: csrf,
      credential_id: id,
      name: 'Phone',
    });
    expect(renamed.headers.get('location')).toBe('/account?passkey=renamed#passkeys');
    const badName = await owner.post('/account/passkeys/rename', {
      csrf_token: csrf,
      credential_id: id,
      name: 'evil\u202Eeman',
    });
    expect(badName.headers.get('location')).toBe('/account?passkey=bad_name#passkeys');
    expect(
      (await server.pool.query('SELECT name FROM passkeys WHERE credential_id = $1', [credential.id])).rows,
    ).toEqual([{ name: 'Phone' }]);

    const deleted = await owner.post('/account/passkeys/delete', { csrf_token: csrf, credential_id: id });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/account?passkey=deleted#passkeys');
    expect(auditOf('passkey.deleted').at(-1)).toMatchObject({ credentialId: id });
    const { browser, csrf: loginCsrf, options } = await startSignIn();
    const response = await finishSignIn(browser, loginCsrf, assert(credential, options, ORIGIN));
    expect(response.status).toBe(400);
    expect(auditOf('passkey.login.failure').at(-1)).toMatchObject({ reason: 'unknown_credential' });
  });

  it('refuses the options request without the CSRF token, and registration of another browser’s challenge', async () => {
    const { username } = await newUser();
    const browser = await signIn(username);
    expect((await postJson(browser, '/account/passkeys/options', {})).status).toBe(403);
    expect(
      (await postJson(new WebClient(server.url), '/login/passkey/options', { csrf_token: 'x' })).status,
    ).toBe(403);
    // A registration answered in another session of the same user: the challenge is not this browser's.
    const csrf = await csrfOf(browser, '/account');
    const options = (await (
      await postJson(browser, '/account/passkeys/options', { csrf_token: csrf })
    ).json()) as CreationOptions;
    const other = await signIn(username);
    const otherCsrf = await csrfOf(other, '/account');
    const response = await other.post('/account/passkeys', {
      csrf_token: otherCsrf,
      credential: JSON.stringify(createCredential(options, ORIGIN).response),
    });
    expect(response.headers.get('location')).toBe('/account?passkey=failed#passkeys');
    expect(auditOf('passkey.registration_refused').at(-1)).toMatchObject({ reason: 'challenge' });
  });

  it('bounds hostile input: body size, credential id length, the number of passkeys per user', async () => {
    const { username, userId } = await newUser();
    const browser = await signIn(username);
    const csrf = await csrfOf(browser, '/account');
    const huge = await browser.post('/account/passkeys', {
      csrf_token: csrf,
      credential: 'x'.repeat(40_000),
    });
    // Refused by the body parser's limit (the page error handler answers 400 for any unreadable form).
    expect(huge.status).toBe(400);
    expect(await huge.text()).toContain('The form could not be read.');
    const hugeOptions = await postJson(browser, '/account/passkeys/options', {
      csrf_token: csrf,
      pad: 'x'.repeat(4000),
    });
    expect(hugeOptions.status).toBe(400);

    // A credential id of 1024 bytes (WebAuthn L3 §7.1 step 25: at most 1023).
    const options = (await (
      await postJson(browser, '/account/passkeys/options', { csrf_token: csrf })
    ).json()) as CreationOptions;
    const long = createCredential(options, ORIGIN, { credentialId: Buffer.alloc(1024, 1) });
    const refused = await browser.post('/account/passkeys', {
      csrf_token: csrf,
      credential: JSON.stringify(long.response),
    });
    expect(refused.headers.get('location')).toBe('/account?passkey=failed#passkeys');
    const tooLongId = await browser.post('/account/passkeys/delete', {
      csrf_token: csrf,
      credential_id: 'A'.repeat(1400),
    });
    expect(tooLongId.status).toBe(400);

    for (let i = 0; i < 10; i++)
      expect((await register(browser, `key ${i}`)).response.headers.get('location')).toBe(
        '/account?passkey=added#passkeys',
      );
    expect((await postJson(browser, '/account/passkeys/options', { csrf_token: csrf })).status).toBe(409);
    const page = await (await browser.get('/account')).text();
    expect(page).toContain('You have 10 passkeys, the most allowed.');
    const { rows } = await server.pool.query('SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1', [
      userId,
    ]);
    expect(rows[0].n).toBe(10);
  });

  it('backs off an address after failed assertions, before verifying anything (429, Retry-After)', async () => {
    const { username } = await newUser();
    const { credential } = await register(await signIn(username));
    const bad = async () => {
      const attempt = await startSignIn();
      const answer = assert(credential, attempt.options, ORIGIN, { origin: 'http://evil.example' });
      return finishSignIn(attempt.browser, attempt.csrf, answer);
    };
    for (let i = 0; i < 3; i++) expect((await bad()).status).toBe(400);
    // The good answer is ready before the failure that starts the back-off (1 s): no race with it.
    const { browser, csrf, options } = await startSignIn();
    const good = assert(credential, options, ORIGIN);
    expect((await bad()).status).toBe(400);
    const response = await finishSignIn(browser, csrf, good);
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(auditOf('passkey.login.throttled').length).toBeGreaterThan(0);
  });
});

describe('passkeys on an issuer whose host is an IP address', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({ env: { ISSUER: 'http://127.0.0.1' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('offers none: WebAuthn refuses IP addresses as RP IDs, so no form, no script, no route', async () => {
    const browser = new WebClient(server.url);
    const html = await (await browser.get('/login')).text();
    expect(html).not.toContain('/login/passkey');
    expect(html).not.toContain('<script');
    const options = await browser.post('/login/passkey/options', {
      csrf_token: inputValue(html, 'csrf_token'),
    });
    expect(options.status).toBe(404);
  });
});
