import { createPublicKey, type JsonWebKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import nock from 'nock';
import { waitFor } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { admin, createClient, createUser } from './support/oauth-helpers';
import {
  endSessionPath,
  RP_AFTER_LOGOUT,
  RP_CALLBACK,
  registerBackchannelRp,
  signInThroughClient,
  silentAuthorize,
} from './support/logout-helpers';
import { inputValue, WebClient } from './web/support/web-client';
import { createBackchannelLogoutRepo } from '../src/storage/backchannel-logout.repo';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** OpenID Connect Back-Channel Logout 1.0: logout tokens POSTed to the RP (nock stands in for it). */
describe('back-channel logout', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret: string };
  let quiet: { clientId: string; secret: string };

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
    server = await startAuthServer({
      BACKCHANNEL_LOGOUT_RETRY_BASE_MS: '1000',
      BACKCHANNEL_LOGOUT_TIMEOUT_MS: '5000',
      BACKCHANNEL_LOGOUT_MAX_ATTEMPTS: '3',
    });
    client = await registerBackchannelRp(server, { post_logout_redirect_uris: [RP_AFTER_LOGOUT] });
    const second = await createClient(server, {
      name: 'RP without back-channel',
      redirect_uris: [RP_CALLBACK],
      grant_types: ['authorization_code'],
    });
    quiet = { clientId: second.clientId, secret: second.secret! };
  });
  afterEach(() => nock.cleanAll());
  afterAll(async () => {
    await server.stop();
    nock.enableNetConnect();
  });

  const pending = async () =>
    Number((await server.pool.query('SELECT count(*) FROM backchannel_logout_deliveries')).rows[0].count);

  /** Verifies a logout token against the published JWKS, as an RP would (§2.6). */
  async function verifyLogoutToken(token: string) {
    const { header } = jwt.decode(token, { complete: true })!;
    expect(header.typ).toBe('logout+jwt');
    expect(header.alg).toBe('RS256');
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as { keys: JsonWebKey[] };
    const jwk = jwks.keys.find((k) => k.kid === header.kid);
    expect(jwk).toBeDefined();
    return jwt.verify(token, createPublicKey({ key: jwk!, format: 'jwk' }), {
      algorithms: ['RS256'],
      issuer: server.config.ISSUER,
      audience: client.clientId,
    }) as Record<string, unknown>;
  }

  it('registers the metadata, and refuses a back-channel URI that is not https (or loopback http)', async () => {
    const shown = await admin(server, 'GET', `/clients/${client.clientId}`);
    expect(shown.body).toMatchObject({
      post_logout_redirect_uris: [RP_AFTER_LOGOUT],
      backchannel_logout_uri: 'https://rp.example/backchannel',
      backchannel_logout_session_required: true,
    });
    for (const uri of ['http://rp.example/bc', 'https://rp.example/bc#x', 'not a url']) {
      const refused = await admin(server, 'POST', '/clients', {
        name: 'x',
        client_type: 'confidential',
        backchannel_logout_uri: uri,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_client_metadata');
    }
  });

  it('POSTs a signed logout token with sub and the ID token sid, without holding up the redirect', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    const { idToken, claims } = await signInThroughClient(server, browser, client, user.username);
    await signInThroughClient(server, browser, quiet, user.username); // no URI: told nothing
    const bodies: string[] = [];
    // The RP takes 3 s to answer: the user's redirect must not wait for it.
    const scope = nock('https://rp.example')
      .post('/backchannel', (body: Record<string, string>) => {
        bodies.push(body.logout_token!);
        return true;
      })
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .delay(3000)
      .reply(200);

    const started = Date.now();
    const response = await browser.get(
      endSessionPath({ id_token_hint: idToken, post_logout_redirect_uri: RP_AFTER_LOGOUT, state: 's' }),
    );
    expect(response.status).toBe(303);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(response.headers.get('location')).toBe(`${RP_AFTER_LOGOUT}?state=s`);

    await waitFor(async () => scope.isDone() && (await pending()) === 0, 8000);
    expect(bodies).toHaveLength(1);
    const logout = await verifyLogoutToken(bodies[0]!);
    expect(logout).toMatchObject({ iss: server.config.ISSUER, aud: client.clientId, sub: user.userId });
    expect(logout.sid).toBe(claims.sid);
    expect(logout.events).toEqual({ [EVENT]: {} });
    expect(logout).not.toHaveProperty('nonce');
    expect(typeof logout.jti).toBe('string');
    expect((logout.exp as number) - (logout.iat as number)).toBeLessThanOrEqual(120);
    expect(Math.abs((logout.iat as number) - Date.now() / 1000)).toBeLessThan(30);
  });

  it('retries a 500 with backoff, then succeeds; the pending row is kept in Postgres meanwhile', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    const { idToken } = await signInThroughClient(server, browser, client, user.username);
    const seen: number[] = [];
    const scope = nock('https://rp.example')
      .post('/backchannel')
      .reply(() => {
        seen.push(Date.now());
        return [500, 'busy'];
      })
      .post('/backchannel')
      .reply(() => {
        seen.push(Date.now());
        return [200, ''];
      });
    const response = await browser.get(endSessionPath({ id_token_hint: idToken }));
    expect(response.status).toBe(200);
    await waitFor(async () => seen.length >= 1, 5000);
    await waitFor(async () => {
      const { rows } = await server.pool.query<{ attempts: number; last_error: string | null }>(
        'SELECT attempts, last_error FROM backchannel_logout_deliveries',
      );
      return rows.length === 1 && rows[0]!.attempts === 1 && rows[0]!.last_error === 'HTTP 500';
    }, 2000);
    await waitFor(async () => scope.isDone() && (await pending()) === 0, 8000);
    expect(seen).toHaveLength(2);
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(900); // the backoff, not a tight loop
  });

  it('gives up after the bounded number of attempts, and a 400 is final at once', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    const { idToken } = await signInThroughClient(server, browser, client, user.username);
    let calls = 0;
    nock('https://rp.example')
      .post('/backchannel')
      .times(10)
      .reply(() => {
        calls += 1;
        return [503, ''];
      });
    await browser.get(endSessionPath({ id_token_hint: idToken }));
    await waitFor(async () => (await pending()) === 0 && calls > 0, 8000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(calls).toBe(3); // BACKCHANNEL_LOGOUT_MAX_ATTEMPTS

    nock.cleanAll();
    const again = await createUser(server);
    const second = new WebClient(server.url);
    const hint = (await signInThroughClient(server, second, client, again.username)).idToken;
    let refusals = 0;
    nock('https://rp.example')
      .post('/backchannel')
      .times(10)
      .reply(() => {
        refusals += 1;
        return [400, '{"error":"invalid_request"}'];
      });
    await second.get(endSessionPath({ id_token_hint: hint }));
    await waitFor(async () => (await pending()) === 0 && refusals > 0, 5000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(refusals).toBe(1);
  });

  it("'Sign out everywhere' ends every session of the user and tells the RP of each (its sid)", async () => {
    const user = await createUser(server);
    const laptop = new WebClient(server.url);
    const phone = new WebClient(server.url);
    const a = await signInThroughClient(server, laptop, client, user.username);
    const b = await signInThroughClient(server, phone, client, user.username);
    expect(a.claims.sid).not.toBe(b.claims.sid);
    const bodies: string[] = [];
    const scope = nock('https://rp.example')
      .post('/backchannel', (body: Record<string, string>) => {
        bodies.push(body.logout_token!);
        return true;
      })
      .times(2)
      .reply(204);

    const account = await (await laptop.get('/account')).text();
    expect(account).toContain('Sign out everywhere');
    const refused = await laptop.post('/account/sign-out-everywhere', {});
    expect(refused.status).toBe(403);
    expect(await silentAuthorize(phone, client.clientId)).toBe('code');
    const done = await laptop.post('/account/sign-out-everywhere', {
      csrf_token: inputValue(account, 'csrf_token'),
    });
    expect(done.status).toBe(303);
    expect(await silentAuthorize(laptop, client.clientId)).toBe('login_required');
    expect(await silentAuthorize(phone, client.clientId)).toBe('login_required');

    await waitFor(async () => scope.isDone() && (await pending()) === 0, 8000);
    const tokens = await Promise.all(bodies.map((token) => verifyLogoutToken(token)));
    expect(tokens.map((t) => t.sid).sort()).toEqual([a.claims.sid, b.claims.sid].sort());
    expect(tokens.every((t) => t.sub === user.userId)).toBe(true);
    expect(new Set(tokens.map((t) => t.jti)).size).toBe(2);
  });

  it('the account page sign-out (POST /logout) tells the RP too', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    const { claims } = await signInThroughClient(server, browser, client, user.username);
    const bodies: string[] = [];
    const scope = nock('https://rp.example')
      .post('/backchannel', (body: Record<string, string>) => {
        bodies.push(body.logout_token!);
        return true;
      })
      .reply(200);
    const account = await (await browser.get('/account')).text();
    const out = await browser.post('/logout', { csrf_token: inputValue(account, 'csrf_token') });
    expect(out.status).toBe(303);
    await waitFor(async () => scope.isDone() && (await pending()) === 0, 8000);
    expect((await verifyLogoutToken(bodies[0]!)).sid).toBe(claims.sid);
  });

  it('delivers at start what a previous process left in the outbox (main.ts calls resume())', async () => {
    const user = await createUser(server);
    await server.pool.query(
      `INSERT INTO backchannel_logout_deliveries (client_id, user_id, sid, attempts, last_error)
       VALUES ($1, $2, 'left-by-a-crash', 1, 'HTTP 503')`,
      [client.clientId, user.userId],
    );
    const bodies: string[] = [];
    const scope = nock('https://rp.example')
      .post('/backchannel', (body: Record<string, string>) => {
        bodies.push(body.logout_token!);
        return true;
      })
      .reply(200);
    server.logout.resume();
    await waitFor(async () => scope.isDone() && (await pending()) === 0, 8000);
    expect(await verifyLogoutToken(bodies[0]!)).toMatchObject({ sub: user.userId, sid: 'left-by-a-crash' });
    // With nothing pending the sender has no timer (it would poll Postgres forever otherwise).
    expect(await createBackchannelLogoutRepo(server.pool).msUntilNextDue()).toBeNull();
  });
});
