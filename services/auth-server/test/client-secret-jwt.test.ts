import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { testRedisUrl } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, postForm, type Json } from './support/oauth-helpers';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * RFC 7523 §2.2 / OIDC Core §9 client_secret_jwt over HTTP on real Postgres and Redis: an HMAC
 * assertion keyed with the client secret; every refusal is 401 invalid_client.
 */
describe('client_secret_jwt client authentication (RFC 7523)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret: string };
  let basicClient: { clientId: string; secret: string };

  const claims = (extra: Json = {}, id = client.clientId): Json => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: id,
      sub: id,
      aud: server.config.ISSUER,
      jti: randomUUID(),
      exp: now + 60,
      ...extra,
    };
  };
  const sign = (payload: Json, secret = client.secret, alg: jwt.Algorithm = 'HS256') =>
    jwt.sign(payload, secret, { algorithm: alg });
  const tokenWith = (assertion: string, path = '/token') =>
    postForm(`${server.url}${path}`, {
      grant_type: 'client_credentials',
      scope: 'search.read',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    });
  const expectInvalidClient = (response: Awaited<ReturnType<typeof postForm>>) => {
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.body.access_token).toBeUndefined();
  };

  beforeAll(async () => {
    server = await startAuthServer({ REDIS_URL: testRedisUrl(), AUTH_FAILURES_PER_MINUTE: '1000' });
    await createResourceServer(server, ['search.read']);
    const created = await createClient(server, { token_endpoint_auth_method: 'client_secret_jwt' });
    expect(created.body.token_endpoint_auth_method).toBe('client_secret_jwt');
    client = { clientId: created.clientId, secret: created.secret as string };
    const other = await createClient(server);
    basicClient = { clientId: other.clientId, secret: other.secret as string };
  });
  afterAll(async () => {
    await server.stop();
  });

  it('issues a client_credentials token for a good HS256 assertion', async () => {
    const response = await tokenWith(sign(claims()));
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe('Bearer');
    expect(typeof response.body.access_token).toBe('string');
  });

  it('accepts it at the revocation endpoint too', async () => {
    const response = await postForm(`${server.url}/revoke`, {
      token: 'not-a-token',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: sign(claims()),
    });
    expect(response.status).toBe(200);
    expectInvalidClient(
      await postForm(`${server.url}/revoke`, {
        token: 'not-a-token',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: sign(claims(), 'wrong-secret-of-enough-length-to-be-hs256-key'),
      }),
    );
  });

  it('refuses a wrong secret, another algorithm, none, a replayed jti, a wrong aud and an expired assertion', async () => {
    expectInvalidClient(await tokenWith(sign(claims(), `${client.secret}x`)));
    // HS384 needs a 48-byte key (RFC 7518 §3.2): our 43-character secret is only long enough for HS256.
    expectInvalidClient(await tokenWith(sign(claims(), client.secret, 'HS384')));
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expectInvalidClient(await tokenWith(jwt.sign(claims(), privateKey, { algorithm: 'RS256' })));
    expectInvalidClient(await tokenWith(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`));
    const once = sign(claims());
    expect((await tokenWith(once)).status).toBe(200);
    expectInvalidClient(await tokenWith(once));
    expectInvalidClient(await tokenWith(sign(claims({ aud: 'https://elsewhere.example/token' }))));
    // RFC 7523bis §4: the issuer alone; the token endpoint URL is no longer an audience.
    expectInvalidClient(await tokenWith(sign(claims({ aud: `${server.config.ISSUER}/token` }))));
    const past = Math.floor(Date.now() / 1000) - 600;
    expectInvalidClient(await tokenWith(sign(claims({ exp: past, iat: past - 60 }))));
  });

  it('checks the MAC over the exact bytes (a hand-made HS256 with a tampered payload fails)', async () => {
    const head = b64({ alg: 'HS256', typ: 'JWT' });
    const good = `${head}.${b64(claims())}`;
    const mac = createHmac('sha256', client.secret).update(good).digest('base64url');
    expectInvalidClient(await tokenWith(`${head}.${b64(claims())}.${mac}`));
    expect((await tokenWith(`${good}.${mac}`)).status).toBe(200);
  });

  it('keeps each client to its registered method', async () => {
    // A client_secret_jwt client cannot send its secret instead…
    expectInvalidClient(
      await postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials', scope: 'search.read' },
        { authorization: basic(client.clientId, client.secret) },
      ),
    );
    // …and a client_secret_basic client cannot use an HMAC assertion made with its secret.
    expectInvalidClient(await tokenWith(sign(claims({}, basicClient.clientId), basicClient.secret)));
  });

  it('stores the secret only sealed: no plaintext in the row, and no sealed copy for other clients', async () => {
    const { rows } = await server.pool.query(
      `SELECT client_id, secret_ciphertext, row_to_json(clients)::text AS whole FROM clients
        WHERE client_id = ANY($1)`,
      [[client.clientId, basicClient.clientId]],
    );
    const byId = new Map(rows.map((r) => [r.client_id as string, r]));
    const jwtRow = byId.get(client.clientId);
    expect(typeof jwtRow.secret_ciphertext).toBe('string');
    expect(jwtRow.whole).not.toContain(client.secret);
    expect(Buffer.from(jwtRow.secret_ciphertext, 'base64').includes(Buffer.from(client.secret))).toBe(false);
    expect(byId.get(basicClient.clientId).secret_ciphertext).toBeNull();
  });

  it('advertises the method and the HMAC algorithms (RFC 8414 §2)', async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    const body = (await response.json()) as Json;
    expect(body.token_endpoint_auth_methods_supported).toContain('client_secret_jwt');
    expect(body.token_endpoint_auth_signing_alg_values_supported).toEqual(
      expect.arrayContaining(['HS256', 'HS384', 'HS512', 'RS256']),
    );
  });
});
