import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createUser, pkce, postForm, type Json } from './support/oauth-helpers';
import { expectAuthorizeErrorPage } from './web/support/expect-authorize-error-page';
import { signInAndConsent } from './web/support/sign-in-and-consent';
import { authorizePath, WebClient } from './web/support/web-client';

const CALLBACK = 'https://app.example/cb';
const PASSWORD = 'correct horse battery';

/** RFC 9101 signed request objects at /authorize and /par, over HTTP on real Postgres. */
describe('request objects (RFC 9101)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string };
  let strict: { clientId: string; body: Json };
  let user: { userId: string; username: string };
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'ro-1' };

  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    const keys = {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [publicJwk] },
      grant_types: ['authorization_code'],
    };
    client = await createClient(server, keys);
    strict = await createClient(server, { ...keys, require_signed_request_object: true });
    expect(strict.body.require_signed_request_object).toBe(true);
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  const objectClaims = (who: { clientId: string }, challenge: string, extra: Json = {}): Json => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: who.clientId,
      aud: server.config.ISSUER,
      exp: now + 60,
      nbf: now - 5,
      jti: randomUUID(),
      client_id: who.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid email',
      state: 'object-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    };
  };
  const sign = (claims: Json, key: KeyObject = privateKey, alg: jwt.Algorithm = 'RS256') =>
    jwt.sign(claims, key, { algorithm: alg, header: { alg, kid: 'ro-1' } });

  /** A browser through login and consent (as needed) until the redirect to the client. */
  const completeInBrowser = (browser: WebClient, path: string) =>
    signInAndConsent(browser, path, { username: user.username, password: PASSWORD });
  /** RFC 7523 client authentication with the same registered key (the clients are private_key_jwt). */
  const assertion = (who: { clientId: string }) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: sign({
        iss: who.clientId,
        sub: who.clientId,
        aud: server.config.ISSUER,
        jti: randomUUID(),
        exp: now + 60,
      }),
    };
  };
  const redeem = (who: { clientId: string }, code: string, verifier: string) =>
    postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      redirect_uri: CALLBACK,
      code,
      code_verifier: verifier,
      ...assertion(who),
    });

  it('advertises request objects and their algorithms (RFC 9101 §10.1)', async () => {
    const response = await fetch(`${server.url}/.well-known/openid-configuration`);
    const body = (await response.json()) as Json;
    expect(body).toMatchObject({ request_parameter_supported: true, request_uri_parameter_supported: false });
    expect(body.request_object_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256']);
  });

  it("drives a signed request to a code, using only the object's parameters (§6.3)", async () => {
    const { verifier, challenge } = pkce();
    const done = await completeInBrowser(
      new WebClient(server.url),
      authorizePath({
        client_id: client.clientId,
        request: sign(objectClaims(client, challenge)),
        state: 'query-state',
        redirect_uri: 'https://evil.example/cb',
        scope: 'openid profile',
      }),
    );
    expect(done.status).toBe(303);
    const location = new URL(done.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('state')).toBe('object-state');
    const token = await redeem(client, location.searchParams.get('code')!, verifier);
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe('openid email');
  });

  it('refuses a tampered signature, another key, wrong aud or iss, an expired or not yet valid object, and alg none', async () => {
    const { challenge } = pkce();
    const good = sign(objectClaims(client, challenge));
    const [header, payload] = good.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...objectClaims(client, challenge), scope: 'openid email profile' }),
    ).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'ro-1' })).toString('base64url')}.${payload}.`;
    const refused = [
      `${header}.${forgedPayload}.${good.split('.')[2]}`,
      sign(objectClaims(client, challenge), other),
      sign(objectClaims(client, challenge, { aud: 'https://other.example' })),
      sign(objectClaims(client, challenge, { iss: strict.clientId })),
      sign(objectClaims(client, challenge, { exp: now - 120 })),
      sign(objectClaims(client, challenge, { nbf: now + 600 })),
      sign(Object.fromEntries(Object.entries(objectClaims(client, challenge)).filter(([k]) => k !== 'exp'))),
      none,
    ];
    for (const request of refused) {
      const response = await new WebClient(server.url).get(
        authorizePath({ client_id: client.clientId, request }),
      );
      await expectAuthorizeErrorPage(response, 'invalid_request_object');
    }
  });

  it('refuses a query client_id that does not match, and a request_uri not from /par', async () => {
    const { challenge } = pkce();
    const browser = new WebClient(server.url);
    const mismatch = await browser.get(
      authorizePath({ client_id: strict.clientId, request: sign(objectClaims(client, challenge)) }),
    );
    await expectAuthorizeErrorPage(mismatch, 'invalid_request_object');
    const remote = await browser.get(
      authorizePath({ client_id: client.clientId, request_uri: 'https://client.example/request.jwt' }),
    );
    await expectAuthorizeErrorPage(remote, 'request_uri_not_supported');
  });

  it('refuses a plain request from a client that requires signed ones, and takes its signed one', async () => {
    const { verifier, challenge } = pkce();
    const plain = await new WebClient(server.url).get(
      authorizePath({
        client_id: strict.clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(plain.status).toBe(303);
    const location = new URL(plain.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('code')).toBeNull();
    const done = await completeInBrowser(
      new WebClient(server.url),
      authorizePath({ client_id: strict.clientId, request: sign(objectClaims(strict, challenge)) }),
    );
    const code = new URL(done.headers.get('location')!).searchParams.get('code')!;
    expect((await redeem(strict, code, verifier)).status).toBe(200);
  });

  it('takes a signed request object at /par, and refuses a bad one or a plain push from a strict client', async () => {
    const { verifier, challenge } = pkce();
    const push = (who: { clientId: string }, form: Record<string, string>) =>
      postForm(`${server.url}/par`, { ...form, ...assertion(who) });
    const bad = await push(strict, { request: sign(objectClaims(strict, challenge), other) });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request_object');
    const plain = await push(strict, {
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(plain.status).toBe(400);
    expect(plain.body.error).toBe('invalid_request');
    const pushed = await push(strict, { request: sign(objectClaims(strict, challenge)) });
    expect(pushed.status).toBe(201);
    const done = await completeInBrowser(
      new WebClient(server.url),
      authorizePath({ client_id: strict.clientId, request_uri: pushed.body.request_uri as string }),
    );
    const location = new URL(done.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('object-state');
    expect((await redeem(strict, location.searchParams.get('code')!, verifier)).status).toBe(200);
  });
});
