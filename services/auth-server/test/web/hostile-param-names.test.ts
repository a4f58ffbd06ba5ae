import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient, createUser, pkce, postForm, basic, redeemCode } from '../support/oauth-helpers';
import { authorizePath, inputValue, WebClient } from './support/web-client';

/**
 * Issue 17: parameter names are the client's. `__proto__`, `constructor` and `toString` are unknown
 * parameters like any other (RFC 6749 §3.1: ignored), so a request carrying them behaves as without
 * them. They are written as text: a JS object literal with `__proto__` would set a prototype.
 */
const HOSTILE = '__proto__=x&constructor=y&toString=z';
const HOSTILE_FORM: Record<string, string> = Object.fromEntries([
  ['__proto__', 'x'],
  ['constructor', 'y'],
  ['toString', 'z'],
]);

describe('request parameters named like JavaScript prototype members', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server, { name: 'Proto App', grant_types: ['authorization_code'] });
    const created = await admin(server, 'POST', '/users', { username: 'ada', password: 'ada password 1815' });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('/authorize with them signs in, asks consent and redirects a code that /token redeems', async () => {
    const { verifier, challenge } = pkce();
    const path = `${authorizePath({
      client_id: client.clientId,
      redirect_uri: 'https://app.example/cb',
      response_type: 'code',
      scope: 'openid email',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}&${HOSTILE}`;
    const browser = new WebClient(server.url);
    const page = await browser.get(path);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Sign in to continue to <strong>Proto App</strong>');

    const login = await browser.post('/login', {
      csrf_token: inputValue(html, 'csrf_token'),
      return_to: inputValue(html, 'return_to'),
      username: 'ada',
      password: 'ada password 1815',
    });
    expect(login.status).toBe(303);
    const consent = await browser.get(login.headers.get('location')!);
    expect(consent.status).toBe(200);
    const consentHtml = await consent.text();
    expect(consentHtml).toContain('<li data-scope="email">');

    const decided = await browser.post('/consent', {
      csrf_token: inputValue(consentHtml, 'csrf_token'),
      authorize_query: inputValue(consentHtml, 'authorize_query'),
      decision: 'allow',
    });
    expect(decided.status).toBe(303);
    const location = new URL(decided.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://app.example/cb');
    expect(location.searchParams.get('state')).toBe('st');
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const token = await redeemCode(server, client, { code, code_verifier: verifier, ...HOSTILE_FORM });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'openid email' });
    expect(typeof token.body.access_token).toBe('string');
  });

  it('/authorize with an unknown client answers the same error page with or without them', async () => {
    const path = authorizePath({ client_id: 'no-such-client', response_type: 'code', scope: 'openid' });
    const plain = await new WebClient(server.url).get(path);
    const hostile = await new WebClient(server.url).get(`${path}&${HOSTILE}`);
    expect(plain.status).toBe(400);
    expect(hostile.status).toBe(400);
    expect(await hostile.text()).toBe(await plain.text());
  });

  it('/token answers the same OAuth error with or without them', async () => {
    const form = {
      grant_type: 'authorization_code',
      code: 'not-a-code',
      redirect_uri: 'https://app.example/cb',
    };
    const auth = { authorization: basic(client.clientId, client.secret!) };
    const plain = await postForm(`${server.url}/token`, form, auth);
    const hostile = await postForm(`${server.url}/token`, { ...form, ...HOSTILE_FORM }, auth);
    expect(plain.status).toBe(400);
    expect(plain.body.error).toBe('invalid_grant');
    expect({ status: hostile.status, body: hostile.body }).toEqual({
      status: plain.status,
      body: plain.body,
    });
  });

  it('releases no claims for a registered scope named `constructor`, and still issues tokens', async () => {
    const scoped = await createClient(server, { scopes: ['openid', 'email', 'constructor'] });
    const user = await createUser(server);
    const { verifier, challenge } = pkce();
    const request = await server.core.flow.parse({
      client_id: scoped.clientId,
      redirect_uri: 'https://app.example/cb',
      response_type: 'code',
      scope: 'openid constructor',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const location = new URL(
      await server.core.flow.approve(request, { userId: user.userId, authTime: new Date() }, request.scopes),
    );
    const token = await redeemCode(server, scoped, {
      code: location.searchParams.get('code')!,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    const userinfo = await fetch(`${server.url}/userinfo`, {
      headers: { authorization: `Bearer ${token.body.access_token as string}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual({ sub: user.userId });
  });
});
