import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { testRedisUrl, uniqueId } from '@acme/testkit';
import {
  bootstrapSearchStore,
  SEARCH_STORE_RESOURCE_SERVER,
} from '../src/domain/admin/bootstrap-search-store';
import { clientCredentialsToken } from './support/client-credentials-token';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  admin,
  basic,
  createClient,
  createResourceServer,
  postForm,
  type Json,
} from './support/oauth-helpers';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * RFC 7523 §2.2 client_secret_jwt for resource servers at POST /token_info (RFC 7662 §2.1), over HTTP on
 * real Postgres and Redis: an HS256 assertion keyed with the resource server's secret, when it registered
 * for it; aud = the issuer alone (RFC 7523bis), jti once, every refusal 401 invalid_client.
 */
describe('client_secret_jwt resource-server authentication at /token_info', () => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string };
  let accessToken: string;

  const claims = (extra: Json = {}, id = rs.id): Json => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: id,
      sub: id,
      aud: server.config.ISSUER,
      jti: randomUUID(),
      iat: now,
      exp: now + 60,
      ...extra,
    };
  };
  const sign = (payload: Json, secret = rs.secret, alg: jwt.Algorithm = 'HS256') =>
    jwt.sign(payload, secret, { algorithm: alg });
  const introspectWith = (assertion: string, form: Record<string, string> = {}) =>
    postForm(`${server.url}/token_info`, {
      token: accessToken,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
      ...form,
    });
  const expectRefused = (response: Awaited<ReturnType<typeof postForm>>) => {
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="token_info"/);
    expect(response.body.active).toBeUndefined();
  };

  beforeAll(async () => {
    server = await startAuthServer({ REDIS_URL: testRedisUrl(), AUTH_FAILURES_PER_MINUTE: '1000' });
    const id = uniqueId('rs');
    const created = await admin(server, 'POST', '/resource-servers', {
      id,
      audience: `https://${id}.example`,
      scopes: ['search.read'],
      client_secret_jwt: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.client_secret_jwt).toBe(true);
    rs = { id, secret: created.body.secret as string };
    const client = await createClient(server);
    accessToken = await clientCredentialsToken(server, client);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers for a good HS256 assertion, and refuses its jti the second time', async () => {
    const assertion = sign(claims());
    const first = await introspectWith(assertion);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ active: true, scope: 'search.read', aud: expect.anything() });
    expectRefused(await introspectWith(assertion));
    // Basic keeps working for it (the revocation stream and the relay header take only Basic).
    const byBasic = await postForm(
      `${server.url}/token_info`,
      { token: accessToken },
      { authorization: basic(rs.id, rs.secret) },
    );
    expect(byBasic.body.active).toBe(true);
  });

  it('refuses a wrong secret, a too-short key for HS384, none, an RS256 assertion, a wrong aud or typ, expiry', async () => {
    expectRefused(await introspectWith(sign(claims(), `${rs.secret}x`)));
    // RFC 7518 §3.2: HS384 needs a 48-byte key; a 43-character secret only keys HS256.
    expectRefused(await introspectWith(sign(claims(), rs.secret, 'HS384')));
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    expectRefused(await introspectWith(`${b64({ alg: 'none' })}.${b64(claims())}.`));
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expectRefused(await introspectWith(jwt.sign(claims(), privateKey, { algorithm: 'RS256' })));
    // RFC 7523bis §4: the issuer as the sole audience; the token or introspection endpoint is refused.
    for (const aud of [
      `${server.config.ISSUER}/token`,
      `${server.config.ISSUER}/token_info`,
      ['x', server.config.ISSUER],
    ])
      expectRefused(await introspectWith(sign(claims({ aud }))));
    expectRefused(
      await introspectWith(
        jwt.sign(claims(), rs.secret, { algorithm: 'HS256', header: { alg: 'HS256', typ: 'dpop+jwt' } }),
      ),
    );
    const past = Math.floor(Date.now() / 1000) - 600;
    expectRefused(await introspectWith(sign(claims({ exp: past, iat: past - 60 }))));
    expectRefused(await introspectWith(sign(claims({ exp: Math.floor(Date.now() / 1000) + 3600 }))));
    // A client_id beside the assertion must name its issuer (RFC 7521 §4.2).
    expectRefused(await introspectWith(sign(claims()), { client_id: 'someone-else' }));
  });

  it('refuses an HMAC assertion from a resource server not registered for client_secret_jwt', async () => {
    const plain = await createResourceServer(server, ['search.read']);
    const response = await introspectWith(sign(claims({}, plain.id), plain.secret));
    expectRefused(response);
    // The same resource server over Basic is fine: only the method is refused.
    const byBasic = await postForm(
      `${server.url}/token_info`,
      { token: accessToken },
      { authorization: basic(plain.id, plain.secret) },
    );
    expect(byBasic.status).toBe(200);
  });

  it('keeps the secret sealed: the row holds no plaintext, and other resource servers no sealed copy', async () => {
    const { rows } = await server.pool.query<{ id: string; secret_ciphertext: string | null }>(
      'SELECT id, secret_ciphertext FROM resource_servers WHERE id = $1',
      [rs.id],
    );
    expect(rows[0]?.secret_ciphertext).toEqual(expect.any(String));
    expect(rows[0]?.secret_ciphertext).not.toContain(rs.secret);
    expect(Buffer.from(rows[0]!.secret_ciphertext!, 'base64').toString('latin1')).not.toContain(rs.secret);
    const plain = await createResourceServer(server, ['search.read']);
    const other = await server.pool.query('SELECT secret_ciphertext FROM resource_servers WHERE id = $1', [
      plain.id,
    ]);
    expect(other.rows[0].secret_ciphertext).toBeNull();
    const listed = await admin(server, 'GET', '/resource-servers');
    const mine = (listed.body as unknown as Json[]).find((r) => r.id === rs.id);
    expect(mine).toMatchObject({ id: rs.id, client_secret_jwt: true });
    expect(JSON.stringify(listed.body)).not.toContain(rs.secret);
  });

  it('re-seals the secret when the search-store bootstrap sets a new one: the new secret signs, the old no longer', async () => {
    const created = await admin(server, 'POST', '/resource-servers', {
      id: SEARCH_STORE_RESOURCE_SERVER.id,
      audience: SEARCH_STORE_RESOURCE_SERVER.audience,
      scopes: [...SEARCH_STORE_RESOURCE_SERVER.scopes],
      client_secret_jwt: true,
    });
    expect(created.status).toBe(201);
    const oldSecret = created.body.secret as string;
    const id = SEARCH_STORE_RESOURCE_SERVER.id;
    expect((await introspectWith(sign(claims({}, id), oldSecret))).status).toBe(200);
    const newSecret = 'a-rotated-search-store-secret-of-43-characters';
    expect(await bootstrapSearchStore(server.core.ctx, newSecret)).toBe('updated');
    expectRefused(await introspectWith(sign(claims({}, id), oldSecret)));
    expect((await introspectWith(sign(claims({}, id), newSecret))).status).toBe(200);
    // A resource server without a sealed secret does not get one from the bootstrap.
    await server.pool.query('UPDATE resource_servers SET secret_ciphertext = NULL WHERE id = $1', [id]);
    expect(await bootstrapSearchStore(server.core.ctx, oldSecret)).toBe('updated');
    const row = await server.pool.query('SELECT secret_ciphertext FROM resource_servers WHERE id = $1', [id]);
    expect(row.rows[0].secret_ciphertext).toBeNull();
  });

  it('advertises the methods for introspection (RFC 8414 §2)', async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    const metadata = (await response.json()) as Json;
    expect(metadata.introspection_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_jwt', 'private_key_jwt']),
    );
    expect(metadata.introspection_endpoint_auth_signing_alg_values_supported).toContain('HS256');
  });
});
