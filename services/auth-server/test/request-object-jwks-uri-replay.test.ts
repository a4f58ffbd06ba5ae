import { createHash, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { testRedisUrl } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createUser, pkce, postForm, type Json } from './support/oauth-helpers';
import { expectAuthorizeErrorPage } from './web/support/expect-authorize-error-page';
import { signInAndConsent } from './web/support/sign-in-and-consent';
import { authorizePath, inputValue, WebClient } from './web/support/web-client';

const CALLBACK = 'https://app.example/cb';
const PASSWORD = 'correct horse battery';

function ecKey(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid } as Json };
}

/**
 * RFC 9101 request objects verified with keys from the client's registered jwks_uri (served by a loopback
 * server the test controls), and request-object jti single use at /authorize and /par, over HTTP on real
 * Postgres and Redis.
 */
describe('request objects: jwks_uri keys and single-use jti (RFC 9101)', () => {
  let server: RunningAuthServer;
  let keysServer: Server;
  let keysUrl: string;
  let served: Json[] = [];
  let keysUp = true;
  let fetches = 0;
  let user: { userId: string; username: string };
  const first = ecKey('ro-a');

  const register = async () =>
    createClient(server, {
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: `${keysUrl}?${randomUUID()}`, // one URI (and cache entry) per client
    });
  const objectClaims = (clientId: string, challenge: string, extra: Json = {}): Json => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: clientId,
      aud: server.config.ISSUER,
      exp: now + 60,
      jti: randomUUID(),
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      state: 'object-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    };
  };
  const sign = (claims: Json, key: { kid: string; privateKey: KeyObject } = first) =>
    jwt.sign(claims, key.privateKey, { algorithm: 'ES256', header: { alg: 'ES256', kid: key.kid } });
  const assertion = (clientId: string) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: sign({
        iss: clientId,
        sub: clientId,
        aud: server.config.ISSUER,
        jti: randomUUID(),
        exp: now + 60,
      }),
    };
  };

  /** Signs in and consents as needed; returns the final response (a 303 to the client, or a page). */
  const completeInBrowser = (path: string) =>
    signInAndConsent(new WebClient(server.url), path, { username: user.username, password: PASSWORD });
  const codeOf = (response: Response) => {
    expect(response.status).toBe(303);
    return new URL(response.headers.get('location')!).searchParams.get('code');
  };

  beforeAll(async () => {
    keysServer = createServer((_req, res) => {
      fetches += 1;
      if (!keysUp) return void res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((resolve) => keysServer.listen(0, '127.0.0.1', resolve));
    keysUrl = `http://127.0.0.1:${(keysServer.address() as AddressInfo).port}/jwks`;
    server = await startAuthServer(
      { REDIS_URL: testRedisUrl(), CLIENT_JWKS_REFETCH_SECONDS: '0', AUTH_FAILURES_PER_MINUTE: '1000' },
      { issuerIsUrl: true },
    );
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
    keysServer.closeAllConnections();
    await new Promise((resolve) => keysServer.close(resolve));
  });
  beforeEach(() => {
    served = [first.publicJwk];
    keysUp = true;
  });

  it("verifies a request object with a key from the client's jwks_uri, and redeems the code", async () => {
    const client = await register();
    const { verifier, challenge } = pkce();
    fetches = 0;
    const done = await completeInBrowser(
      authorizePath({ client_id: client.clientId, request: sign(objectClaims(client.clientId, challenge)) }),
    );
    const code = codeOf(done);
    expect(code).toEqual(expect.any(String));
    expect(fetches).toBe(1); // the set is cached across the login and consent reloads
    const token = await postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      redirect_uri: CALLBACK,
      code: code!,
      code_verifier: verifier,
      ...assertion(client.clientId),
    });
    expect(token.status).toBe(200);
  });

  it('fetches the set again for a rotated-in kid, and refuses a key that is not in it', async () => {
    const client = await register();
    const { challenge } = pkce();
    expect(
      codeOf(
        await completeInBrowser(
          authorizePath({
            client_id: client.clientId,
            request: sign(objectClaims(client.clientId, challenge)),
          }),
        ),
      ),
    ).toEqual(expect.any(String));
    const rotated = ecKey('ro-b');
    served = [first.publicJwk, rotated.publicJwk];
    const done = await completeInBrowser(
      authorizePath({
        client_id: client.clientId,
        request: sign(objectClaims(client.clientId, challenge), rotated),
      }),
    );
    expect(codeOf(done)).toEqual(expect.any(String));
    const stranger = ecKey('ro-c');
    await expectAuthorizeErrorPage(
      await new WebClient(server.url).get(
        authorizePath({
          client_id: client.clientId,
          request: sign(objectClaims(client.clientId, challenge), stranger),
        }),
      ),
      'invalid_request_object',
    );
  });

  it('refuses the object when the jwks_uri cannot be fetched and nothing is cached', async () => {
    const client = await register();
    const { challenge } = pkce();
    keysUp = false;
    await expectAuthorizeErrorPage(
      await new WebClient(server.url).get(
        authorizePath({
          client_id: client.clientId,
          request: sign(objectClaims(client.clientId, challenge)),
        }),
      ),
      'invalid_request_object',
    );
  });

  it('uses a request object with a jti once at /authorize: a replay gets the error page, no code', async () => {
    const client = await register();
    const { challenge } = pkce();
    const path = authorizePath({
      client_id: client.clientId,
      request: sign(objectClaims(client.clientId, challenge)),
    });
    // The login and consent pages load the object again before it completes: that is not a replay.
    expect(codeOf(await completeInBrowser(path))).toEqual(expect.any(String));
    const replay = await completeInBrowser(path);
    await expectAuthorizeErrorPage(replay, 'invalid_request_object');
  });

  it('lets the second of two open tabs with one object fail at approval', async () => {
    const client = await register();
    const { challenge } = pkce();
    const path = authorizePath({
      client_id: client.clientId,
      request: sign(objectClaims(client.clientId, challenge)),
    });
    // Both tabs reach the consent page before either approves.
    const tabs = [new WebClient(server.url), new WebClient(server.url)];
    const consentPages: { browser: WebClient; html: string }[] = [];
    for (const browser of tabs) {
      let response = await browser.get(path);
      let html = await response.text();
      response = await browser.post('/login', {
        csrf_token: inputValue(html, 'csrf_token'),
        return_to: inputValue(html, 'return_to'),
        username: user.username,
        password: PASSWORD,
      });
      while (response.status === 303 && response.headers.get('location')!.startsWith('/'))
        response = await browser.get(response.headers.get('location')!);
      html = await response.text();
      expect(html).toContain('authorize_query');
      consentPages.push({ browser, html });
    }
    const decide = ({ browser, html }: { browser: WebClient; html: string }) =>
      browser.post('/consent', {
        csrf_token: inputValue(html, 'csrf_token'),
        authorize_query: inputValue(html, 'authorize_query'),
        decision: 'allow',
      });
    expect(codeOf(await decide(consentPages[0]!))).toEqual(expect.any(String));
    await expectAuthorizeErrorPage(await decide(consentPages[1]!), 'invalid_request_object');
  });

  it('uses a pushed request object once: the second push is refused, the request_uri still completes', async () => {
    const client = await register();
    const { challenge } = pkce();
    const request = sign(objectClaims(client.clientId, challenge));
    const pushed = await postForm(`${server.url}/par`, { request, ...assertion(client.clientId) });
    expect(pushed.status).toBe(201);
    const again = await postForm(`${server.url}/par`, { request, ...assertion(client.clientId) });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_request_object');
    expect(again.body.request_uri).toBeUndefined();
    // Nor may it be sent straight to /authorize once pushed.
    await expectAuthorizeErrorPage(
      await new WebClient(server.url).get(authorizePath({ client_id: client.clientId, request })),
      'invalid_request_object',
    );
    const done = await completeInBrowser(
      authorizePath({ client_id: client.clientId, request_uri: pushed.body.request_uri as string }),
    );
    expect(codeOf(done)).toEqual(expect.any(String));
  });

  it('keeps the jti in Redis for the object life, and takes an object without jti more than once', async () => {
    const client = await register();
    const { challenge } = pkce();
    const claims = objectClaims(client.clientId, challenge);
    expect(
      codeOf(await completeInBrowser(authorizePath({ client_id: client.clientId, request: sign(claims) }))),
    ).toEqual(expect.any(String));
    const hash = createHash('sha256')
      .update(`request-object\u0000${client.clientId}\u0000${claims.jti as string}`)
      .digest('base64url');
    const [key] = await server.redis!.keys(`*:jti:${hash}`);
    expect(key).toBeDefined();
    const ttl = await server.redis!.ttl(key!);
    expect(ttl).toBeGreaterThan(60);
    expect(ttl).toBeLessThanOrEqual(60 + 30);
    const { jti: _jti, ...withoutJti } = claims;
    const path = authorizePath({ client_id: client.clientId, request: sign(withoutJti) });
    expect(codeOf(await completeInBrowser(path))).toEqual(expect.any(String));
    expect(codeOf(await completeInBrowser(path))).toEqual(expect.any(String));
  });

  it('refuses an object that lives more than an hour, and a non-string jti', async () => {
    const client = await register();
    const { challenge } = pkce();
    const now = Math.floor(Date.now() / 1000);
    for (const extra of [{ exp: now + 2 * 3600 }, { jti: 42 }]) {
      await expectAuthorizeErrorPage(
        await new WebClient(server.url).get(
          authorizePath({
            client_id: client.clientId,
            request: sign(objectClaims(client.clientId, challenge, extra)),
          }),
        ),
        'invalid_request_object',
      );
    }
  });
});
