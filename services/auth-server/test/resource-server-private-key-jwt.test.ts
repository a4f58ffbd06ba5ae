import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { testRedisUrl, uniqueId } from '@acme/testkit';
import { clientCredentialsToken } from './support/client-credentials-token';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { admin, basic, createClient, postForm, type Json } from './support/oauth-helpers';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

function rsaKey(kid: string): { kid: string; privateKey: KeyObject; publicJwk: Json } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicJwk: { ...publicKey.export({ format: 'jwk' }), kid } };
}

/**
 * RFC 7523 private_key_jwt for resource servers at POST /token_info (RFC 7662 §2.1), over HTTP on real
 * Postgres and Redis: the client rules (aud, exp, jti once, the registered key) apply; Basic still works.
 */
describe('private_key_jwt resource-server authentication at /token_info', () => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string };
  let accessToken: string;
  const key = rsaKey('rs-key-1');

  const claims = (extra: Json = {}): Json => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: rs.id,
      sub: rs.id,
      aud: server.config.ISSUER,
      jti: randomUUID(),
      iat: now,
      exp: now + 60,
      ...extra,
    };
  };
  const sign = (payload: Json, privateKey = key.privateKey) =>
    jwt.sign(payload, privateKey, { algorithm: 'RS256', header: { alg: 'RS256', kid: key.kid } });
  const introspectWith = (assertion: string, headers: Record<string, string> = {}, ip?: string) =>
    postForm(
      `${server.url}/token_info`,
      { token: accessToken, client_assertion_type: ASSERTION_TYPE, client_assertion: assertion },
      { ...headers, ...(ip ? { 'x-forwarded-for': ip } : {}) },
    );
  const expectRefused = (response: Awaited<ReturnType<typeof postForm>>) => {
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="token_info"/);
    expect(response.body.active).toBeUndefined();
  };

  beforeAll(async () => {
    server = await startAuthServer({
      REDIS_URL: testRedisUrl(),
      AUTH_FAILURES_PER_MINUTE: '3',
      TRUST_PROXY: 'true',
    });
    const id = uniqueId('rs');
    const created = await admin(server, 'POST', '/resource-servers', {
      id,
      audience: `https://${id}.example`,
      scopes: ['search.read'],
      jwks: { keys: [key.publicJwk] },
    });
    expect(created.status).toBe(201);
    expect(created.body.jwks).toEqual({ keys: [key.publicJwk] });
    rs = { id, secret: created.body.secret as string };
    const client = await createClient(server);
    accessToken = await clientCredentialsToken(server, client);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers for a good assertion, and refuses its jti the second time', async () => {
    const assertion = sign(claims());
    const good = await introspectWith(assertion, {}, '198.51.100.1');
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ active: true, scope: 'search.read' });
    expectRefused(await introspectWith(assertion, {}, '198.51.100.2'));
  });

  it('refuses a wrong aud, a wrong key, an expired or over-long assertion, and another issuer', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases = [
      sign(claims({ aud: 'https://elsewhere.example' })),
      sign(claims(), rsaKey('rs-key-1').privateKey),
      sign(claims({ iat: now - 600, exp: now - 120 })),
      sign(claims({ exp: now + 3600 })),
      sign(claims({ sub: 'someone-else' })),
    ];
    for (const [i, assertion] of cases.entries())
      expectRefused(await introspectWith(assertion, {}, `198.51.100.${10 + i}`));
  });

  it('refuses a resource server that registered no keys, and an assertion beside Basic', async () => {
    const { body } = await admin(server, 'POST', '/resource-servers', {
      id: uniqueId('rs'),
      audience: `https://${uniqueId('aud')}.example`,
      scopes: [],
    });
    expectRefused(await introspectWith(sign(claims({ iss: body.id, sub: body.id })), {}, '198.51.100.20'));
    const both = await introspectWith(
      sign(claims()),
      { authorization: basic(rs.id, rs.secret) },
      '198.51.100.21',
    );
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
  });

  it('still takes Basic from a resource server with keys', async () => {
    const response = await postForm(
      `${server.url}/token_info`,
      { token: accessToken },
      { authorization: basic(rs.id, rs.secret), 'x-forwarded-for': '198.51.100.30' },
    );
    expect(response.status).toBe(200);
    expect(response.body.active).toBe(true);
  });

  it('throttles failed assertions per source only: another address with a good one still passes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1)
      statuses.push(
        (await introspectWith(sign(claims({ aud: 'https://x.example' })), {}, '203.0.113.9')).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await introspectWith(sign(claims()), {}, '203.0.113.10')).status).toBe(200);
  });

  it('refuses jwks with jwks_uri, and private keys, at registration', async () => {
    const both = await admin(server, 'POST', '/resource-servers', {
      id: uniqueId('rs'),
      audience: `https://${uniqueId('aud')}.example`,
      jwks: { keys: [key.publicJwk] },
      jwks_uri: 'https://keys.example/jwks',
    });
    expect(both.status).toBe(400);
    const privateJwk = { ...key.privateKey.export({ format: 'jwk' }), kid: 'p' };
    const secretKey = await admin(server, 'POST', '/resource-servers', {
      id: uniqueId('rs'),
      audience: `https://${uniqueId('aud')}.example`,
      jwks: { keys: [privateJwk] },
    });
    expect(secretKey.status).toBe(400);
  });
});
