import { createHash, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { testRedisUrl } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  admin,
  approvedCode,
  basic,
  createClient,
  createResourceServer,
  createUser,
  postForm,
  type Json,
} from './support/oauth-helpers';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface Signer {
  kid: string;
  privateKey: KeyObject;
  publicJwk: Json;
}

function rsaSigner(kid: string): Signer {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid } };
}

function ecSigner(kid: string): Signer {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid } };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * RFC 7523 §2.2 / §3 client authentication with private_key_jwt (OIDC Core §9), over HTTP on real
 * Postgres and Redis: every refusal is 401 invalid_client, as for a wrong secret.
 */
describe('private_key_jwt client authentication (RFC 7523)', () => {
  let server: RunningAuthServer;
  let clientId: string;
  let secretClient: { clientId: string; secret?: string };
  const rsa = rsaSigner('rsa-1');
  const ec = ecSigner('ec-1');

  const claims = (extra: Json = {}): Json => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: clientId,
      sub: clientId,
      aud: server.config.ISSUER,
      jti: randomUUID(),
      iat: now,
      exp: now + 60,
      ...extra,
    };
  };
  const sign = (payload: Json, signer: Signer = rsa, alg: jwt.Algorithm = 'RS256', kid = signer.kid) =>
    jwt.sign(payload, signer.privateKey, { algorithm: alg, header: { alg, kid } });
  const tokenWith = (assertion: string, form: Record<string, string> = {}) =>
    postForm(`${server.url}/token`, {
      grant_type: 'client_credentials',
      scope: 'search.read',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
      ...form,
    });
  const expectInvalidClient = (response: Awaited<ReturnType<typeof postForm>>) => {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(response.body.error).toBe('invalid_client');
    expect(response.body.access_token).toBeUndefined();
  };

  beforeAll(async () => {
    server = await startAuthServer({ REDIS_URL: testRedisUrl(), AUTH_FAILURES_PER_MINUTE: '1000' });
    await createResourceServer(server, ['search.read']);
    const created = await createClient(server, {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [rsa.publicJwk, ec.publicJwk] },
    });
    clientId = created.clientId;
    expect(created.secret).toBeUndefined();
    expect(created.body.token_endpoint_auth_method).toBe('private_key_jwt');
    expect(created.body.jwks).toEqual({ keys: [rsa.publicJwk, ec.publicJwk] });
    secretClient = await createClient(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('issues client_credentials tokens for RS256, PS256 and ES256 assertions', async () => {
    for (const [signer, alg] of [
      [rsa, 'RS256'],
      [rsa, 'PS256'],
      [ec, 'ES256'],
    ] as const) {
      const response = await tokenWith(sign(claims(), signer, alg));
      expect({ alg, status: response.status }).toEqual({ alg, status: 200 });
      expect(response.body.token_type).toBe('Bearer');
      expect(typeof response.body.access_token).toBe('string');
    }
  });

  it('takes only the issuer identifier as the sole aud (RFC 7523bis §4): no token endpoint, no second value', async () => {
    const issuer = server.config.ISSUER;
    for (const aud of [issuer, [issuer]]) expect((await tokenWith(sign(claims({ aud })))).status).toBe(200);
    for (const aud of [
      `${issuer}/token`,
      `${issuer}/par`,
      [issuer, `${issuer}/token`],
      ['https://x.example', issuer],
      [],
    ])
      expectInvalidClient(await tokenWith(sign(claims({ aud }))));
    expectInvalidClient(await tokenWith(sign(claims({ aud: undefined }))));
  });

  it('takes typ client-authentication+jwt or JWT, and refuses other JWT kinds (RFC 7523bis §4, RFC 8725 §3.11)', async () => {
    const signTyp = (typ: string) =>
      jwt.sign(claims(), rsa.privateKey, { algorithm: 'RS256', header: { alg: 'RS256', kid: rsa.kid, typ } });
    for (const typ of ['client-authentication+jwt', 'application/client-authentication+jwt', 'JWT'])
      expect((await tokenWith(signTyp(typ))).status).toBe(200);
    for (const typ of ['oauth-authz-req+jwt', 'dpop+jwt', 'logout+jwt', 'at+jwt'])
      expectInvalidClient(await tokenWith(signTyp(typ)));
  });

  it('redeems an authorization code with an assertion', async () => {
    const user = await createUser(server);
    const { code, verifier } = await approvedCode(server, { clientId }, user, 'openid search.read');
    const response = await postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      redirect_uri: 'https://app.example/cb',
      code,
      code_verifier: verifier,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: sign(claims()),
    });
    expect(response.status).toBe(200);
    expect(typeof response.body.access_token).toBe('string');
    expect(jwt.decode(response.body.id_token as string)).toMatchObject({ aud: clientId, sub: user.userId });
  });

  it('authenticates at /revoke through the same function', async () => {
    const issued = await tokenWith(sign(claims()));
    const form = { token: issued.body.access_token as string, client_assertion_type: ASSERTION_TYPE };
    const revoked = await postForm(`${server.url}/revoke`, { ...form, client_assertion: sign(claims()) });
    expect(revoked.status).toBe(200);
    const forged = await postForm(`${server.url}/revoke`, {
      ...form,
      client_assertion: sign(claims(), rsaSigner('rsa-1')),
    });
    expectInvalidClient(forged);
  });

  it('authenticates at /par (RFC 9126 §2) through the same function, and keeps no assertion', async () => {
    const form = {
      redirect_uri: 'https://app.example/cb',
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      client_assertion_type: ASSERTION_TYPE,
    };
    const pushed = await postForm(`${server.url}/par`, { ...form, client_assertion: sign(claims()) });
    expect(pushed.status).toBe(201);
    const { rows } = await server.pool.query<{ params: Json }>(
      'SELECT params FROM pushed_authorization_requests WHERE client_id = $1',
      [clientId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.params).not.toHaveProperty('client_assertion');
    const forged = await postForm(`${server.url}/par`, {
      ...form,
      client_assertion: sign(claims(), rsaSigner('rsa-1')),
    });
    expectInvalidClient(forged);
  });

  it('refuses a signature by another key under a registered kid', async () => {
    expectInvalidClient(await tokenWith(sign(claims(), rsaSigner('rsa-1'))));
  });

  it('refuses HS256 keyed with the public key, and alg none (RFC 8725 §3.1–3.2)', async () => {
    const publicKeyPem = createPublicKey(rsa.privateKey).export({ format: 'pem', type: 'spki' }) as string;
    const hs = jwt.sign(claims(), publicKeyPem, {
      algorithm: 'HS256',
      header: { alg: 'HS256', kid: 'rsa-1' },
    });
    expectInvalidClient(await tokenWith(hs));
    const none = `${b64({ alg: 'none', kid: 'rsa-1' })}.${b64(claims())}.`;
    expectInvalidClient(await tokenWith(none));
    // An EC key's kid with an RSA algorithm (and the reverse) is refused as well.
    expectInvalidClient(await tokenWith(sign(claims(), rsa, 'RS256', 'ec-1')));
  });

  it('refuses an expired assertion, one without exp, and one living longer than 5 minutes', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectInvalidClient(await tokenWith(sign(claims({ iat: now - 600, exp: now - 120 }))));
    const noExp = claims();
    delete noExp.exp;
    expectInvalidClient(await tokenWith(sign(noExp)));
    expectInvalidClient(await tokenWith(sign(claims({ exp: now + 3600 }))));
  });

  it('refuses an assertion without jti, and a second use of one (replay)', async () => {
    const noJti = claims();
    delete noJti.jti;
    expectInvalidClient(await tokenWith(sign(noJti)));
    const once = sign(claims());
    expect((await tokenWith(once)).status).toBe(200);
    expectInvalidClient(await tokenWith(once));
    // A new assertion with the same jti is the same replay.
    const jti = randomUUID();
    expect((await tokenWith(sign(claims({ jti })))).status).toBe(200);
    expectInvalidClient(await tokenWith(sign(claims({ jti }), ec, 'ES256')));
  });

  it('does not use up the jti of a refused assertion', async () => {
    const jti = randomUUID();
    expectInvalidClient(await tokenWith(sign(claims({ jti }), rsaSigner('rsa-1'))));
    expect((await tokenWith(sign(claims({ jti })))).status).toBe(200);
  });

  it('refuses a wrong aud', async () => {
    expectInvalidClient(await tokenWith(sign(claims({ aud: 'https://other-as.example/token' }))));
    expectInvalidClient(await tokenWith(sign(claims({ aud: `${server.config.ISSUER}/revoke` }))));
  });

  it('refuses iss or sub other than the client_id, and a client_id parameter naming another client', async () => {
    expectInvalidClient(await tokenWith(sign(claims({ sub: secretClient.clientId }))));
    expectInvalidClient(await tokenWith(sign(claims({ iss: secretClient.clientId }))));
    expectInvalidClient(await tokenWith(sign(claims()), { client_id: secretClient.clientId }));
    expect((await tokenWith(sign(claims()), { client_id: clientId })).status).toBe(200);
  });

  it('refuses an unknown kid, and a missing kid when the client has several keys', async () => {
    expectInvalidClient(await tokenWith(sign(claims(), rsa, 'RS256', 'rsa-2')));
    const noKid = jwt.sign(claims(), rsa.privateKey, { algorithm: 'RS256' });
    expectInvalidClient(await tokenWith(noKid));
  });

  it('refuses another client_assertion_type and a missing assertion', async () => {
    expectInvalidClient(
      await tokenWith(sign(claims()), {
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
      }),
    );
    const missing = await postForm(`${server.url}/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
    });
    expectInvalidClient(missing);
  });

  it('refuses an assertion together with a secret (one method per request)', async () => {
    const response = await tokenWith(sign(claims()), { client_secret: 'x' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
    const both = await postForm(
      `${server.url}/token`,
      {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: sign(claims()),
      },
      { authorization: basic(secretClient.clientId, secretClient.secret!) },
    );
    expect(both.status).toBe(400);
  });

  it('refuses secrets for a private_key_jwt client and assertions for a secret client', async () => {
    const form = { grant_type: 'client_credentials', scope: 'search.read' };
    expectInvalidClient(await postForm(`${server.url}/token`, form, { authorization: basic(clientId, '') }));
    expectInvalidClient(
      await postForm(`${server.url}/token`, { ...form, client_id: clientId, client_secret: 'x' }),
    );
    expectInvalidClient(await postForm(`${server.url}/token`, { ...form, client_id: clientId }));
    const asSecretClient = sign(claims({ iss: secretClient.clientId, sub: secretClient.clientId }));
    expectInvalidClient(await tokenWith(asSecretClient));
  });

  it('registers only public keys with distinct kids, and jwks only with private_key_jwt', async () => {
    const privateJwk = { ...(rsa.privateKey.export({ format: 'jwk' }) as Json), kid: 'p' };
    const cases: Json[] = [
      { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [privateJwk] } },
      { token_endpoint_auth_method: 'private_key_jwt' },
      { jwks: { keys: [rsa.publicJwk] } },
      { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [rsa.publicJwk, rsa.publicJwk] } },
      { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...rsa.publicJwk, alg: 'ES256' }] } },
      {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'o' }] },
      },
      {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ ...rsa.publicJwk, kid: undefined }] },
      },
      {
        client_type: 'public',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [ec.publicJwk] },
      },
    ];
    for (const overrides of cases) {
      const { status, body } = await admin(server, 'POST', '/clients', {
        name: 'bad',
        client_type: 'confidential',
        ...overrides,
      });
      expect({ overrides, status, error: body.error }).toEqual({
        overrides,
        status: 400,
        error: 'invalid_client_metadata',
      });
    }
  });

  it('advertises private_key_jwt and its algorithms in discovery (RFC 8414 §2)', async () => {
    const response = await fetch(`${server.url}/.well-known/openid-configuration`);
    const metadata = (await response.json()) as Json;
    for (const endpoint of ['token_endpoint', 'revocation_endpoint']) {
      expect(metadata[`${endpoint}_auth_methods_supported`]).toContain('private_key_jwt');
      expect(metadata[`${endpoint}_auth_signing_alg_values_supported`]).toEqual([
        'RS256',
        'PS256',
        'ES256',
        'HS256', // client_secret_jwt
        'HS384',
        'HS512',
      ]);
    }
  });
});

describe('private_key_jwt without Redis and failure back-off', () => {
  let server: RunningAuthServer;
  afterEach(async () => {
    await server.stop();
  });

  it('refuses a replayed jti with the in-process store', async () => {
    server = await startAuthServer();
    await createResourceServer(server, ['search.read']);
    const signer = ecSigner('k');
    const { clientId } = await createClient(server, {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [signer.publicJwk] },
    });
    const now = Math.floor(Date.now() / 1000);
    // One key registered: an assertion without kid picks it.
    const assertion = jwt.sign(
      { iss: clientId, sub: clientId, aud: server.config.ISSUER, jti: randomUUID(), exp: now + 60 },
      signer.privateKey,
      { algorithm: 'ES256' },
    );
    const form = {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    };
    expect((await postForm(`${server.url}/token`, form)).status).toBe(200);
    expect((await postForm(`${server.url}/token`, form)).status).toBe(401);
  });

  it('keeps a used jti in Redis until the assertion expires, where every instance sees it', async () => {
    server = await startAuthServer({ REDIS_URL: testRedisUrl() });
    const signer = ecSigner('k');
    const { clientId } = await createClient(server, {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [signer.publicJwk] },
    });
    const now = Math.floor(Date.now() / 1000);
    const jti = randomUUID();
    const form = {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: jwt.sign(
        { iss: clientId, sub: clientId, aud: server.config.ISSUER, jti, exp: now + 60 },
        signer.privateKey,
        { algorithm: 'ES256', keyid: 'k' },
      ),
    };
    expect((await postForm(`${server.url}/token`, form)).status).toBe(200);
    const hash = createHash('sha256').update(`${clientId}\0${jti}`).digest('base64url');
    const keys: string[] = [];
    let cursor = '0';
    for (let i = 0; i < 1000 && (i === 0 || cursor !== '0'); i += 1) {
      const [next, found] = await server.redis!.scan(cursor, 'MATCH', `*:jti:${hash}`, 'COUNT', 10_000);
      cursor = next;
      keys.push(...found);
    }
    expect(keys).toHaveLength(1);
    const ttl = await server.redis!.ttl(keys[0]!);
    expect(ttl).toBeGreaterThan(60);
    expect(ttl).toBeLessThanOrEqual(90);
    expect((await postForm(`${server.url}/token`, form)).status).toBe(401);
  });

  it('counts failed assertions against the source like failed secrets (429 past the budget)', async () => {
    server = await startAuthServer({ REDIS_URL: testRedisUrl(), AUTH_FAILURES_PER_MINUTE: '3' });
    const signer = ecSigner('k');
    const { clientId } = await createClient(server, {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [signer.publicJwk] },
    });
    const forged = ecSigner('k');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const now = Math.floor(Date.now() / 1000);
      const assertion = jwt.sign(
        { iss: clientId, sub: clientId, aud: server.config.ISSUER, jti: randomUUID(), exp: now + 60 },
        forged.privateKey,
        { algorithm: 'ES256', keyid: 'k' },
      );
      statuses.push(
        (
          await postForm(`${server.url}/token`, {
            grant_type: 'client_credentials',
            client_assertion_type: ASSERTION_TYPE,
            client_assertion: assertion,
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses[4]).toBe(429);
  });
});
