import { Issuer, generators } from 'openid-client';
import { PUSHED_REQUEST_INTERACTION_SECONDS } from '../src/domain/authorize/pushed-request';
import { purgeExpired } from '../src/domain/tokens/purge-expired';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { admin, basic, createClient, createUser, pkce, postForm, type Json } from './support/oauth-helpers';
import { expectAuthorizeErrorPage } from './web/support/expect-authorize-error-page';
import { signInAndConsent } from './web/support/sign-in-and-consent';
import { authorizePath, WebClient } from './web/support/web-client';

const CALLBACK = 'https://app.example/cb';
const PASSWORD = 'correct horse battery';
const REQUEST_URI = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/;
/**
 * PAR_TTL_SECONDS for these tests: the longest allowed, so a slow step between a push and its first use on
 * a loaded machine cannot outlast it. Lifetimes are asserted exactly and in the database's own clock
 * (expires_at against created_at / first_used_at of the same row), never against this process's
 * Date.now(); expiry itself is tested by moving expires_at into the past.
 */
const PAR_TTL = 600;

/** RFC 9126 over HTTP on real Postgres: POST /par, /authorize with request_uri, then /token. */
describe('pushed authorization requests (RFC 9126)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string; username: string };
  beforeAll(async () => {
    server = await startAuthServer({ PAR_TTL_SECONDS: String(PAR_TTL) }, { issuerIsUrl: true });
    client = await createClient(server, { grant_types: ['authorization_code', 'refresh_token'] });
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  const codeRequest = (challenge: string, extra: Record<string, string> = {}) => ({
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid email',
    state: 'pushed-state',
    nonce: 'n-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  const push = (
    form: Record<string, string>,
    who: { clientId: string; secret?: string } = client,
    headers: Record<string, string> = {},
  ) =>
    postForm(`${server.url}/par`, who.secret ? form : { client_id: who.clientId, ...form }, {
      ...(who.secret ? { authorization: basic(who.clientId, who.secret) } : {}),
      ...headers,
    });
  const storedRow = async (requestUri: string) => {
    const random = requestUri.split(':').pop()!;
    const { rows } = await server.pool.query(
      `SELECT client_id, params, expires_at, first_used_at, consumed_at,
              extract(epoch FROM expires_at - created_at)::float8 AS lifetime_seconds,
              extract(epoch FROM expires_at - first_used_at)::float8 AS after_first_use_seconds
         FROM pushed_authorization_requests WHERE request_hash = $1`,
      [server.core.ctx.hasher.hash(random)],
    );
    return rows[0] as
      | {
          client_id: string;
          params: Json;
          expires_at: Date;
          first_used_at: Date | null;
          consumed_at: Date | null;
          lifetime_seconds: number;
          after_first_use_seconds: number | null;
        }
      | undefined;
  };

  /** A browser through login and consent (as needed) until the redirect to the client. */
  const completeInBrowser = (browser: WebClient, path: string) =>
    signInAndConsent(browser, path, { username: user.username, password: PASSWORD });

  it('advertises the endpoint and that PAR is not required server-wide (RFC 9126 §5)', async () => {
    const response = await fetch(`${server.url}/.well-known/openid-configuration`);
    expect(await response.json()).toMatchObject({
      pushed_authorization_request_endpoint: `${server.config.ISSUER}/par`,
      require_pushed_authorization_requests: false,
    });
  });

  it('pushes, authorizes with request_uri alone and redeems the code with PKCE; other query parameters are ignored', async () => {
    const { verifier, challenge } = pkce();
    const pushed = await push(codeRequest(challenge, { client_secret: client.secret! }));
    // Basic plus client_secret in the body is two methods: refused as at /token.
    expect(pushed.status).toBe(400);
    const ok = await push(codeRequest(challenge));
    expect(ok.status).toBe(201);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.body).toEqual({ request_uri: expect.stringMatching(REQUEST_URI), expires_in: PAR_TTL });
    const requestUri = ok.body.request_uri as string;
    const row = await storedRow(requestUri);
    expect(row).toMatchObject({
      client_id: client.clientId,
      first_used_at: null,
      consumed_at: null,
      lifetime_seconds: PAR_TTL, // stored as announced
    });
    expect(row!.params).toMatchObject({
      scope: 'openid email',
      code_challenge: challenge,
      state: 'pushed-state',
    });
    const stored = await server.pool.query(
      `SELECT count(*)::int AS n FROM pushed_authorization_requests WHERE params::text LIKE $1`,
      [`%${requestUri.split(':').pop()}%`],
    );
    expect(stored.rows[0].n).toBe(0); // the request_uri is kept only as a keyed hash

    const browser = new WebClient(server.url);
    const done = await completeInBrowser(
      browser,
      authorizePath({
        client_id: client.clientId,
        request_uri: requestUri,
        scope: 'openid profile',
        state: 'query-state',
        redirect_uri: 'https://evil.example/cb',
      }),
    );
    expect(done.status).toBe(303);
    const location = new URL(done.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('state')).toBe('pushed-state');
    expect(location.searchParams.get('iss')).toBe(server.config.ISSUER);
    expect((await storedRow(requestUri))!.consumed_at).toBeInstanceOf(Date);

    const token = await postForm(
      `${server.url}/token`,
      {
        grant_type: 'authorization_code',
        code: location.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: CALLBACK,
      },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({
      token_type: 'Bearer',
      scope: 'openid email',
      id_token: expect.any(String),
    });

    // Single use (RFC 9126 §4): once the authorization completed, the request_uri is gone.
    await expectAuthorizeErrorPage(
      await browser.get(authorizePath({ client_id: client.clientId, request_uri: requestUri })),
      'invalid_request_uri',
    );
  });

  it('lets a reload load the request again before it completes, and gives the person time to sign in', async () => {
    const { challenge } = pkce();
    const { body } = await push(codeRequest(challenge));
    const path = authorizePath({ client_id: client.clientId, request_uri: body.request_uri as string });
    const first = await new WebClient(server.url).get(path);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('name="password"');
    const row = await storedRow(body.request_uri as string);
    expect(row!.first_used_at).toBeInstanceOf(Date);
    // The first use extends the push's lifetime to the sign-in window, counted from that use.
    expect(row!.after_first_use_seconds).toBe(PUSHED_REQUEST_INTERACTION_SECONDS);
    expect((await new WebClient(server.url).get(path)).status).toBe(200);
  });

  it('accepts a public client identified by client_id with PKCE, and applies /authorize validation to it', async () => {
    const publicClient = await createClient(server, {
      client_type: 'public',
      grant_types: ['authorization_code'],
    });
    const { challenge } = pkce();
    const ok = await push(codeRequest(challenge), publicClient);
    expect(ok.status).toBe(201);
    const withoutPkce = await push(
      { redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' },
      publicClient,
    );
    expect(withoutPkce.status).toBe(400);
    expect(withoutPkce.body).toEqual({
      error: 'invalid_request',
      error_description: 'PKCE (code_challenge with S256) is required for public clients',
    });
  });

  it('keeps client_secret (client_secret_post) out of the stored request', async () => {
    const { challenge } = pkce();
    const pushed = await postForm(`${server.url}/par`, {
      ...codeRequest(challenge),
      client_id: client.clientId,
      client_secret: client.secret!,
    });
    expect(pushed.status).toBe(201);
    const row = await storedRow(pushed.body.request_uri as string);
    expect(row!.params).not.toHaveProperty('client_secret');
    expect(row!.params).toMatchObject({ client_id: client.clientId });
  });

  it.each([
    [
      'a request_uri in the body (§2.1)',
      { request_uri: 'urn:ietf:params:oauth:request_uri:abc' },
      'invalid_request',
    ],
    ['an unregistered redirect_uri', { redirect_uri: 'https://app.example/other' }, 'invalid_request'],
    ['no response_type', { response_type: '' }, 'invalid_request'],
    ['an unsupported response_type', { response_type: 'code id_token' }, 'unsupported_response_type'],
    ['implicit for a client without it', { response_type: 'token' }, 'unsupported_response_type'],
    ['a scope the client may not ask for', { scope: 'openid admin.everything' }, 'invalid_scope'],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a malformed code_challenge', { code_challenge: 'short' }, 'invalid_request'],
    [
      'an unsigned request object (RFC 9101 §6.3)',
      { request: 'eyJhbGciOiJub25lIn0.e30.' },
      'invalid_request_object',
    ],
    ['an unknown resource', { resource: 'https://unknown.example' }, 'invalid_target'],
  ])('refuses %s with 400 in the OAuth envelope (RFC 9126 §2.3)', async (_label, extra, error) => {
    const { challenge } = pkce();
    const response = await push(codeRequest(challenge, extra));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({ error, error_description: expect.any(String) });
  });

  it('authenticates the client as /token does: 401 invalid_client with WWW-Authenticate', async () => {
    const { challenge } = pkce();
    const wrong = await push(codeRequest(challenge), { clientId: client.clientId, secret: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    const none = await postForm(`${server.url}/par`, codeRequest(challenge));
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_client');
    // A confidential client cannot pass as public by sending its client_id alone.
    const idOnly = await postForm(`${server.url}/par`, {
      ...codeRequest(challenge),
      client_id: client.clientId,
    });
    expect(idOnly.status).toBe(401);
    const otherId = await push({ ...codeRequest(challenge), client_id: 'someone-else' });
    expect(otherId.status).toBe(400);
    expect(otherId.body.error).toBe('invalid_request');
    const json = await fetch(`${server.url}/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic(client.clientId, client.secret!) },
      body: JSON.stringify(codeRequest(challenge)),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('answers an unknown, malformed, expired or another client’s request_uri with an error page and no redirect', async () => {
    const other = await createClient(server, { grant_types: ['authorization_code'] });
    const { challenge } = pkce();
    const { body } = await push(codeRequest(challenge));
    const requestUri = body.request_uri as string;
    const browser = new WebClient(server.url);
    const get = (params: Record<string, string>) => browser.get(authorizePath(params));
    await expectAuthorizeErrorPage(
      await get({ client_id: other.clientId, request_uri: requestUri }),
      'invalid_request_uri',
    );
    // Its last character changed: one that differs from it (a fixed 'A' left one in 64 unchanged).
    const altered = `${requestUri.slice(0, -1)}${requestUri.endsWith('A') ? 'B' : 'A'}`;
    expect(altered).not.toBe(requestUri);
    await expectAuthorizeErrorPage(
      await get({ client_id: client.clientId, request_uri: altered }),
      'invalid_request_uri',
    );
    await expectAuthorizeErrorPage(
      await get({ client_id: client.clientId, request_uri: 'https://app.example/request.jwt' }),
      'request_uri_not_supported', // RFC 9101 §5.2: we fetch none
    );
    await expectAuthorizeErrorPage(await get({ request_uri: requestUri }), 'invalid_request');
    // The wrong client's attempt did not use it up: the right client still can.
    expect((await storedRow(requestUri))!.first_used_at).toBeNull();
    await server.pool.query(
      `UPDATE pushed_authorization_requests SET expires_at = now() - interval '1 second' WHERE client_id = $1`,
      [client.clientId],
    );
    await expectAuthorizeErrorPage(
      await get({ client_id: client.clientId, request_uri: requestUri }),
      'invalid_request_uri',
    );
  });

  it('refuses an unpushed request of a client that requires PAR, and serves its pushed ones', async () => {
    const created = await admin(server, 'POST', '/clients', {
      name: 'PAR only',
      client_type: 'confidential',
      redirect_uris: [CALLBACK],
      scopes: ['openid', 'email'],
      require_pushed_authorization_requests: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.require_pushed_authorization_requests).toBe(true);
    const parOnly = {
      clientId: created.body.client_id as string,
      secret: created.body.client_secret as string,
    };
    const { challenge } = pkce();
    const direct = await new WebClient(server.url).get(
      authorizePath({ client_id: parOnly.clientId, ...codeRequest(challenge) }),
    );
    expect(direct.status).toBe(303);
    const location = new URL(direct.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('pushed-state');
    const pushed = await push(codeRequest(challenge), parOnly);
    expect(pushed.status).toBe(201);
    const viaPar = await new WebClient(server.url).get(
      authorizePath({ client_id: parOnly.clientId, request_uri: pushed.body.request_uri as string }),
    );
    expect(viaPar.status).toBe(200);
    expect(await viaPar.text()).toContain('Sign in to continue to <strong>PAR only</strong>');
    // Clients default to not requiring it.
    expect((await admin(server, 'GET', `/clients/${client.clientId}`)).body).toMatchObject({
      require_pushed_authorization_requests: false,
    });
  });

  it('purges pushed requests a day after they expired', async () => {
    const { challenge } = pkce();
    const { body } = await push(codeRequest(challenge));
    await server.pool.query(
      `UPDATE pushed_authorization_requests SET expires_at = now() - interval '2 days' WHERE request_hash = $1`,
      [server.core.ctx.hasher.hash((body.request_uri as string).split(':').pop()!)],
    );
    const purged = await purgeExpired(server.core.ctx, 86_400);
    expect(purged.pushed).toBeGreaterThanOrEqual(1);
    expect(await storedRow(body.request_uri as string)).toBeUndefined();
  });

  it('works with openid-client’s pushedAuthorizationRequest()', async () => {
    const issuer = await Issuer.discover(server.url);
    const rp = new issuer.Client({
      client_id: client.clientId,
      client_secret: client.secret!,
      redirect_uris: [CALLBACK],
      response_types: ['code'],
    });
    const verifier = generators.codeVerifier();
    const nonce = generators.nonce();
    const pushed = await rp.pushedAuthorizationRequest({
      scope: 'openid email',
      code_challenge: generators.codeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state: 'rp-state',
    });
    expect(pushed.request_uri).toMatch(REQUEST_URI);
    const url = new URL(rp.authorizationUrl({ request_uri: pushed.request_uri }));
    const done = await completeInBrowser(new WebClient(server.url), `${url.pathname}${url.search}`);
    expect(done.status).toBe(303);
    const redirect = done.headers.get('location')!;
    const tokens = await rp.callback(CALLBACK, rp.callbackParams(redirect), {
      code_verifier: verifier,
      nonce,
      state: 'rp-state',
    });
    expect(tokens.claims()).toMatchObject({ sub: user.userId, nonce });
  });
});
