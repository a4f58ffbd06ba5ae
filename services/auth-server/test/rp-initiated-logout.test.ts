import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createUser } from './support/oauth-helpers';
import {
  endSessionPath,
  RP_AFTER_LOGOUT,
  RP_CALLBACK,
  signInThroughClient,
  silentAuthorize,
} from './support/logout-helpers';
import { inputValue, WebClient } from './web/support/web-client';

/** OpenID Connect RP-Initiated Logout 1.0 at /session/end, over HTTP with the real pages and Postgres. */
describe('RP-initiated logout (/session/end)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret: string };
  let other: { clientId: string; secret: string };
  let user: { userId: string; username: string };

  beforeAll(async () => {
    server = await startAuthServer();
    const registered = await createClient(server, {
      name: 'Relying Party',
      redirect_uris: [RP_CALLBACK],
      post_logout_redirect_uris: [RP_AFTER_LOGOUT],
      grant_types: ['authorization_code'],
    });
    client = { clientId: registered.clientId, secret: registered.secret! };
    const second = await createClient(server, {
      name: 'Other RP',
      redirect_uris: [RP_CALLBACK],
      post_logout_redirect_uris: ['https://other.example/bye'],
      grant_types: ['authorization_code'],
    });
    other = { clientId: second.clientId, secret: second.secret! };
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  async function signedIn() {
    const browser = new WebClient(server.url);
    const { idToken, claims } = await signInThroughClient(server, browser, client, user.username);
    return { browser, idToken, claims };
  }
  const sessionCount = async () =>
    Number(
      (await server.pool.query('SELECT count(*) FROM sessions WHERE sid = $1', [currentSid])).rows[0].count,
    );
  let currentSid = '';

  it('is advertised in the discovery metadata with the back-channel flags and sid', async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.end_session_endpoint).toBe(`${server.config.ISSUER}/session/end`);
    expect(metadata.backchannel_logout_supported).toBe(true);
    expect(metadata.backchannel_logout_session_supported).toBe(true);
    expect(metadata.frontchannel_logout_supported).toBe(false);
    expect(metadata.claims_supported).toContain('sid');
  });

  it('puts the session id (sid) in ID tokens: the same within a session, never the cookie, new at each login', async () => {
    const { browser, claims } = await signedIn();
    expect(typeof claims.sid).toBe('string');
    expect((claims.sid as string).length).toBeGreaterThanOrEqual(16);
    expect([...browser.cookies.values()]).not.toContain(claims.sid);
    const again = await signInThroughClient(server, browser, client, user.username);
    expect(again.claims.sid).toBe(claims.sid);
    const elsewhere = await signedIn();
    expect(elsewhere.claims.sid).not.toBe(claims.sid);
    const stored = await server.pool.query('SELECT sid FROM grants WHERE user_id = $1', [user.userId]);
    expect(stored.rows.map((row: { sid: string }) => row.sid)).toContain(claims.sid);
  });

  it('with a valid id_token_hint ends the session at once and redirects to the registered URI with state', async () => {
    const { browser, idToken, claims } = await signedIn();
    currentSid = claims.sid as string;
    expect(await sessionCount()).toBe(1);
    const response = await browser.get(
      endSessionPath({
        id_token_hint: idToken,
        post_logout_redirect_uri: RP_AFTER_LOGOUT,
        state: 'af0ifjsldkj',
      }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`${RP_AFTER_LOGOUT}?state=af0ifjsldkj`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.getSetCookie().join('\n')).toMatch(/auth_session=;/);
    expect(await sessionCount()).toBe(0);
    expect(await silentAuthorize(browser, client.clientId)).toBe('login_required');
  });

  it('accepts an expired ID token as the hint (RP-Initiated Logout §2)', async () => {
    const { browser, claims } = await signedIn();
    const key = server.core.ctx.keys.current('RS256');
    const now = Math.floor(Date.now() / 1000);
    const expired = jwt.sign({ ...claims, iat: now - 7200, exp: now - 3600 }, key.privateKey, {
      algorithm: 'RS256',
      header: { alg: 'RS256', typ: 'JWT', kid: key.kid },
    });
    const response = await browser.get(
      endSessionPath({ id_token_hint: expired, post_logout_redirect_uri: RP_AFTER_LOGOUT }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(RP_AFTER_LOGOUT);
    expect(await silentAuthorize(browser, client.clientId)).toBe('login_required');
  });

  it.each([
    ['another issuer', (c: Record<string, unknown>) => ({ ...c, iss: 'https://evil.example' }), 'ours'],
    ['a foreign key under our kid', (c: Record<string, unknown>) => c, 'foreign'],
    ['an access-token typ', (c: Record<string, unknown>) => c, 'at+jwt'],
    ['alg none', (c: Record<string, unknown>) => c, 'none'],
  ])('refuses a hint with %s: error page, no redirect, session kept', async (_label, edit, how) => {
    const { browser, claims } = await signedIn();
    const key = server.core.ctx.keys.current('RS256');
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const hint =
      how === 'none'
        ? jwt.sign(edit(claims), '', { algorithm: 'none' })
        : jwt.sign(edit(claims), how === 'foreign' ? foreign : key.privateKey, {
            algorithm: 'RS256',
            header: { alg: 'RS256', typ: how === 'at+jwt' ? 'at+jwt' : 'JWT', kid: key.kid },
          });
    const response = await browser.get(
      endSessionPath({ id_token_hint: hint, post_logout_redirect_uri: RP_AFTER_LOGOUT, state: 's' }),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('<code>invalid_request</code>');
    expect(await silentAuthorize(browser, client.clientId)).toBe('code');
  });

  it.each([
    ['a trailing slash', `${RP_AFTER_LOGOUT}/`],
    ['an extra query', `${RP_AFTER_LOGOUT}?x=1`],
    ['another host', 'https://rp.example.evil/signed-out'],
    ['the login redirect_uri', RP_CALLBACK],
    ["another client's URI", 'https://other.example/bye'],
  ])(
    'refuses an unregistered post_logout_redirect_uri (%s): error page, never a redirect',
    async (_l, uri) => {
      const { browser, idToken } = await signedIn();
      const response = await browser.get(
        endSessionPath({ id_token_hint: idToken, post_logout_redirect_uri: uri }),
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await silentAuthorize(browser, client.clientId)).toBe('code');
    },
  );

  it('refuses a client_id that is not the hint audience, an unknown client, and a redirect with no client', async () => {
    const { browser, idToken } = await signedIn();
    const cases: Record<string, string>[] = [
      {
        id_token_hint: idToken,
        client_id: other.clientId,
        post_logout_redirect_uri: 'https://other.example/bye',
      },
      { client_id: 'no-such-client' },
      { post_logout_redirect_uri: RP_AFTER_LOGOUT },
    ];
    for (const params of cases) {
      const response = await browser.get(endSessionPath(params));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    }
    const duplicate = await browser.get(`/session/end?state=a&state=b`);
    expect(duplicate.status).toBe(400);
    expect(await silentAuthorize(browser, client.clientId)).toBe('code');
  });

  it('without a hint asks first: a cross-site GET alone signs nobody out; the CSRF-checked confirmation does', async () => {
    const { browser } = await signedIn();
    const page = await browser.get(
      endSessionPath({
        client_id: client.clientId,
        post_logout_redirect_uri: RP_AFTER_LOGOUT,
        state: 'xyz',
        logout_hint: user.username,
      }),
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('<strong>Relying Party</strong> asks to sign you out.');
    expect(await silentAuthorize(browser, client.clientId)).toBe('code');

    const fields = {
      client_id: inputValue(html, 'client_id'),
      post_logout_redirect_uri: inputValue(html, 'post_logout_redirect_uri'),
      state: inputValue(html, 'state'),
    };
    const forged = await browser.post('/session/end/confirm', fields);
    expect(forged.status).toBe(403);
    const otherSessionToken = await (async () => {
      const attacker = (await signedIn()).browser;
      const attackerPage = await attacker.get(endSessionPath({ client_id: client.clientId }));
      return inputValue(await attackerPage.text(), 'csrf_token');
    })();
    expect(
      (await browser.post('/session/end/confirm', { ...fields, csrf_token: otherSessionToken })).status,
    ).toBe(403);
    expect(await silentAuthorize(browser, client.clientId)).toBe('code');

    // The confirmation re-checks the redirect: a tampered one is refused, and nothing ends.
    const tampered = await browser.post('/session/end/confirm', {
      ...fields,
      post_logout_redirect_uri: 'https://evil.example/',
      csrf_token: inputValue(html, 'csrf_token'),
    });
    expect(tampered.status).toBe(400);
    expect(tampered.headers.get('location')).toBeNull();
    expect(await silentAuthorize(browser, client.clientId)).toBe('code');

    const confirmed = await browser.post('/session/end/confirm', {
      ...fields,
      csrf_token: inputValue(html, 'csrf_token'),
    });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`${RP_AFTER_LOGOUT}?state=xyz`);
    expect(await silentAuthorize(browser, client.clientId)).toBe('login_required');
  });

  it("asks when the hint is another user's ID token, and signs out directly a browser with no session", async () => {
    const mine = await signedIn();
    const someone = await createUser(server);
    const theirs = await signInThroughClient(server, new WebClient(server.url), client, someone.username);
    const page = await mine.browser.get(
      endSessionPath({ id_token_hint: theirs.idToken, post_logout_redirect_uri: RP_AFTER_LOGOUT }),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign out?');
    expect(await silentAuthorize(mine.browser, client.clientId)).toBe('code');

    const fresh = new WebClient(server.url);
    const none = await fresh.get(
      endSessionPath({ id_token_hint: mine.idToken, post_logout_redirect_uri: RP_AFTER_LOGOUT, state: 'q' }),
    );
    expect(none.status).toBe(303);
    expect(none.headers.get('location')).toBe(`${RP_AFTER_LOGOUT}?state=q`);
    const plain = await fresh.get('/session/end');
    expect(plain.status).toBe(200);
    expect(await plain.text()).toContain('You are signed out');
  });

  it('answers a POST (form_post from the RP) with a 303 to the GET carrying the same parameters', async () => {
    const { browser, idToken } = await signedIn();
    const posted = await browser.post('/session/end', {
      id_token_hint: idToken,
      post_logout_redirect_uri: RP_AFTER_LOGOUT,
      state: 'p',
    });
    expect(posted.status).toBe(303);
    const next = posted.headers.get('location')!;
    expect(next.startsWith('/session/end?')).toBe(true);
    const done = await browser.get(next);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${RP_AFTER_LOGOUT}?state=p`);
    expect(await silentAuthorize(browser, client.clientId)).toBe('login_required');
  });
});
