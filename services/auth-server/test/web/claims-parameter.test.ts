import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { basic, createClient, createUser, pkce, postForm, type Json } from '../support/oauth-helpers';
import { codeFlowPages, submitPassword } from './support/code-flow-pages';
import { signInAtLogin, submitSecondFactor, totpCode, userWithTotp } from './support/totp-helpers';
import { authorizePath, inputValue, WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery';
const CALLBACK = 'https://app.example/cb';
const MFA = 'urn:acme:acr:mfa';
const ONE_FACTOR = 'urn:acme:acr:1fa';

/**
 * The OpenID Connect `claims` request parameter (OIDC Core 1.0 §5.5) through the real pages: individual
 * claims for the ID token and UserInfo (consented like scopes, kept on the grant so refreshes agree), in
 * the query, in a pushed request and inside a request object; an essential acr (§5.5.1.1) is a requirement
 * like acr_values; `sub` asked by value (§5.5.1); malformed claims are invalid_request.
 */
describe('claims parameter (OIDC Core §5.5)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    client = await createClient(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  const claims = (value: unknown) => ({ claims: JSON.stringify(value) });
  const refresh = (token: string) =>
    postForm(
      `${server.url}/token`,
      { grant_type: 'refresh_token', refresh_token: token },
      { authorization: basic(client.clientId, client.secret!) },
    );
  const userinfo = async (accessToken: string) => {
    const response = await fetch(`${server.url}/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Json;
  };
  const redirectError = (response: Response) => {
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('code')).toBeNull();
    return location.searchParams.get('error');
  };

  it('says so in discovery', async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Json;
    expect(metadata.claims_parameter_supported).toBe(true);
  });

  it('returns the claims asked for in the ID token and at UserInfo, after consent, on refresh too', async () => {
    const user = await createUser(server); // claims: name, email, email_verified
    const browser = new WebClient(server.url);
    const request = {
      id_token: { email: { essential: true, purpose: 'to write to you' }, nickname: null, address: null },
      userinfo: { name: null, unknown_claim: null },
      future_member: { x: 1 },
    };
    // A hostile name is a name like any other (an object literal's __proto__ would not be serialized).
    const text = JSON.stringify(request).replace(
      '"userinfo":{',
      '"userinfo":{"__proto__":{"essential":true},',
    );
    const flow = codeFlowPages(server, client, { claims: text });
    const consent = await browser.get(
      (await submitPassword(browser, await browser.get(flow.path), user.username, PASSWORD)).headers.get(
        'location',
      )!,
    );
    expect(consent.status).toBe(200);
    const page = await consent.text();
    // Each claim in plain words (nickname shares the name's words; address has its own).
    expect(page).toContain('<li data-claim="email">See your email address</li>');
    expect(page).toContain('<li data-claim="address">See your postal address</li>');
    expect(page).toContain('<li data-claim="name">See your name</li>');
    expect(page).not.toContain('data-claim="nickname"');
    expect(page).not.toContain('data-claim="unknown_claim"');
    expect(page).not.toContain('data-claim="__proto__"');
    const allowed = await browser.post('/consent', {
      csrf_token: inputValue(page, 'csrf_token'),
      authorize_query: inputValue(page, 'authorize_query'),
      decision: 'allow',
    });
    const { token, idToken } = await flow.redeem(new URL(allowed.headers.get('location')!));
    // The ID token has what was asked for it and the user has; userinfo's are not in it.
    expect(idToken.email).toBe(`${user.username}@example.com`);
    expect(idToken).not.toHaveProperty('name');
    expect(idToken).not.toHaveProperty('address');
    expect(idToken).not.toHaveProperty('email_verified');
    expect(await userinfo(token.access_token as string)).toEqual({ sub: user.userId, name: 'Ada Lovelace' });
    const { rows } = await server.pool.query(
      'SELECT g.claims FROM grants g WHERE g.user_id = $1 AND g.client_id = $2',
      [user.userId, client.clientId],
    );
    expect(rows).toEqual([{ claims: { id_token: ['address', 'email', 'nickname'], userinfo: ['name'] } }]);

    // A refresh's ID token and UserInfo say the same.
    const refreshed = await refresh(token.refresh_token as string);
    expect(refreshed.status).toBe(200);
    const again = jwt.decode(refreshed.body.id_token as string) as jwt.JwtPayload;
    expect(again.email).toBe(`${user.username}@example.com`);
    expect(again).not.toHaveProperty('name');
    expect(await userinfo(refreshed.body.access_token as string)).toEqual({
      sub: user.userId,
      name: 'Ada Lovelace',
    });

    // The same claims again: the consent is remembered; one more claim asks again.
    const same = await browser.get(codeFlowPages(server, client, { claims: text }).path);
    expect(same.status).toBe(303);
    expect(same.headers.get('location')).toMatch(/^https:\/\/app\.example\/cb\?code=/);
    const more = await browser.get(
      codeFlowPages(server, client, claims({ userinfo: { phone_number: null, name: null } })).path,
    );
    expect(more.status).toBe(200);
    const morePage = await more.text();
    expect(morePage).toContain('<li data-claim="phone_number">See your phone number</li>');
    expect(morePage).toContain('<li data-claim="name">See your name</li>');
  });

  it('lists no claim the scopes already release, and releases it either way', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    const flow = codeFlowPages(server, client, {
      scope: 'openid email',
      ...claims({ userinfo: { email: { essential: true } } }),
    });
    const consent = await browser.get(
      (await submitPassword(browser, await browser.get(flow.path), user.username, PASSWORD)).headers.get(
        'location',
      )!,
    );
    const page = await consent.text();
    expect(page).toContain('data-scope="email"');
    expect(page).not.toContain('data-claim=');
  });

  it('refuses a malformed claims parameter with invalid_request at the client', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    const bad = [
      '{"id_token":',
      '[]',
      '"id_token"',
      'null',
      '{"id_token":[]}',
      '{"userinfo":"name"}',
      '{"userinfo":{"name":true}}',
      '{"id_token":{"acr":{"essential":"yes"}}}',
      '{"id_token":{"acr":{"values":"urn:acme:acr:mfa"}}}',
      JSON.stringify({ userinfo: Object.fromEntries([...Array(65).keys()].map((i) => [`c${i}`, null])) }),
      JSON.stringify({ id_token: { acr: { values: [...Array(17).keys()].map(String) } } }),
      JSON.stringify({ id_token: { name: { purpose: 'x'.repeat(5000) } } }),
    ];
    for (const text of bad) {
      const answer = await browser.get(codeFlowPages(server, client, { claims: text }).path);
      expect({ text, error: redirectError(answer) }).toEqual({ text, error: 'invalid_request' });
      expect(new URL(answer.headers.get('location')!).searchParams.get('state')).toBe('st');
    }
  });

  it('reads claims pushed to /par', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    const { verifier, challenge } = pkce();
    const pushed = await postForm(
      `${server.url}/par`,
      {
        response_type: 'code',
        redirect_uri: CALLBACK,
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...claims({ id_token: { email: null } }),
      },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(pushed.status).toBe(201);
    const refused = await postForm(
      `${server.url}/par`,
      {
        response_type: 'code',
        redirect_uri: CALLBACK,
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        claims: '{"id_token":',
      },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const page = await browser.get(
      authorizePath({ client_id: client.clientId, request_uri: pushed.body.request_uri as string }),
    );
    const html = await page.text();
    expect(html).toContain('<li data-claim="email">See your email address</li>');
    const allowed = await browser.post('/consent', {
      csrf_token: inputValue(html, 'csrf_token'),
      authorize_query: inputValue(html, 'authorize_query'),
      decision: 'allow',
    });
    const code = new URL(allowed.headers.get('location')!).searchParams.get('code')!;
    const token = await postForm(
      `${server.url}/token`,
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(token.status).toBe(200);
    expect((jwt.decode(token.body.id_token as string) as jwt.JwtPayload).email).toBe(
      `${user.username}@example.com`,
    );
  });

  it('reads claims as a JSON object inside a request object (OIDC Core §6.1)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signer = await createClient(server, {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'c1' }] },
      grant_types: ['authorization_code'],
    });
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    const now = Math.floor(Date.now() / 1000);
    const object = (claimsValue: unknown) =>
      jwt.sign(
        {
          iss: signer.clientId,
          aud: server.config.ISSUER,
          exp: now + 60,
          jti: randomUUID(),
          client_id: signer.clientId,
          redirect_uri: CALLBACK,
          response_type: 'code',
          scope: 'openid',
          state: 'ro',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          claims: claimsValue,
        },
        privateKey,
        { algorithm: 'RS256', header: { alg: 'RS256', kid: 'c1' } },
      );
    const page = await browser.get(
      authorizePath({ client_id: signer.clientId, request: object({ userinfo: { name: null } }) }),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<li data-claim="name">See your name</li>');
    // Inside the signed object the JSON text is parsed alike; an object's malformed parameter is an error
    // page (RFC 9101 §6.3: nothing of it is trusted, redirect_uri included).
    const malformedText = await browser.get(
      authorizePath({ client_id: signer.clientId, request: object('{"userinfo":[]}') }),
    );
    expect(redirectError(malformedText)).toBe('invalid_request');
    const notObject = await browser.get(
      authorizePath({ client_id: signer.clientId, request: object(['name']) }),
    );
    expect(notObject.status).toBe(400);
    expect(notObject.headers.get('location')).toBeNull();
  });

  describe('acr (§5.5.1.1)', () => {
    const essentialAcr = (values: string[]) => claims({ id_token: { acr: { essential: true, values } } });

    it('steps a password-only session up for an essential acr, and its ID token carries that acr', async () => {
      const user = await userWithTotp(server); // signed in with the password alone
      const flow = codeFlowPages(server, client, essentialAcr([MFA]));
      const asked = await user.browser.get(flow.path);
      expect(asked.status).toBe(303);
      expect(asked.headers.get('location')).toBe('/login/second-factor');
      const raised = await submitSecondFactor(user.browser, totpCode(user.secret, 1));
      expect(raised.status).toBe(303);
      const { idToken } = await flow.redeem(await flow.follow(user.browser, raised));
      expect(idToken).toMatchObject({ acr: MFA, amr: ['pwd', 'otp', 'mfa'] });

      // Now at mfa, an essential request for 1fa is met, and the acr returned is the one asked for.
      const lower = codeFlowPages(server, client, {
        ...claims({ id_token: { acr: { essential: true, value: ONE_FACTOR } } }),
      });
      const { token, idToken: second } = await lower.redeem(
        await lower.follow(user.browser, await user.browser.get(lower.path)),
      );
      expect(second).toMatchObject({ acr: ONE_FACTOR, amr: ['pwd', 'otp', 'mfa'] });
      const refreshed = await refresh(token.refresh_token as string);
      expect((jwt.decode(refreshed.body.id_token as string) as jwt.JwtPayload).acr).toBe(ONE_FACTOR);
    });

    it('answers unmet_authentication_requirements when the user has no second factor', async () => {
      const user = await createUser(server);
      const browser = new WebClient(server.url);
      const flow = codeFlowPages(server, client, essentialAcr([MFA]));
      const signedIn = await submitPassword(browser, await browser.get(flow.path), user.username, PASSWORD);
      const back = await browser.get(signedIn.headers.get('location')!);
      expect(redirectError(back)).toBe('unmet_authentication_requirements');
      expect(new URL(back.headers.get('location')!).searchParams.get('state')).toBe('st');
    });

    it('answers unmet_authentication_requirements at once for essential values none of which is ours', async () => {
      const browser = new WebClient(server.url);
      const answer = await browser.get(codeFlowPages(server, client, essentialAcr(['urn:other:gold'])).path);
      expect(redirectError(answer)).toBe('unmet_authentication_requirements');
    });

    it('takes a voluntary acr as a preference: no step-up, the session’s acr in the ID token', async () => {
      const user = await userWithTotp(server);
      const flow = codeFlowPages(server, client, claims({ id_token: { acr: { values: [MFA] } } }));
      const answer = await user.browser.get(flow.path);
      expect(answer.headers.get('location')).not.toBe('/login/second-factor');
      const { idToken } = await flow.redeem(await flow.follow(user.browser, answer));
      expect(idToken).toMatchObject({ acr: ONE_FACTOR, amr: ['pwd'] });
    });
  });

  it('answers for the sub asked for by value only (§5.5.1): another user signs in again or gets login_required', async () => {
    const user = await createUser(server);
    const other = await createUser(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    const wantOther = claims({ id_token: { sub: { value: other.userId } } });
    const none = await browser.get(codeFlowPages(server, client, { ...wantOther, prompt: 'none' }).path);
    expect(redirectError(none)).toBe('login_required');
    const login = await browser.get(codeFlowPages(server, client, wantOther).path);
    expect(login.status).toBe(200);
    // Signing in as the wrong user again does not get a positive answer either.
    const signedIn = await submitPassword(browser, login, user.username, PASSWORD);
    expect(redirectError(await browser.get(signedIn.headers.get('location')!))).toBe('login_required');
    // The user asked for gets the code.
    const flow = codeFlowPages(server, client, claims({ id_token: { sub: { value: user.userId } } }));
    const { idToken } = await flow.redeem(await flow.follow(browser, await browser.get(flow.path)));
    expect(idToken.sub).toBe(user.userId);
  });
});
