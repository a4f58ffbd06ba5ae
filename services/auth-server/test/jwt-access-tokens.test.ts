import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  admin,
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  postForm,
} from './support/oauth-helpers';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('self-encoded (JWT) access tokens (RFC 9068, RFC 8725)', () => {
  let server: RunningAuthServer;
  let rs: { id: string; secret: string; audience: string };
  const clients: Record<string, { clientId: string; secret?: string }> = {};
  const issue = async (alg: string) => {
    const c = clients[alg]!;
    const r = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      {
        authorization: basic(c.clientId, c.secret!),
      },
    );
    return r.body.access_token as string;
  };
  beforeAll(async () => {
    server = await startAuthServer();
    rs = await createResourceServer(server, ['search.read']);
    for (const alg of ['HS256', 'RS256', 'ES256'])
      clients[alg] = await createClient(server, { token_format: 'jwt', jwt_alg: alg });
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(['HS256', 'RS256', 'ES256'])(
    'issues %s tokens with typ at+jwt and the product claims',
    async (alg) => {
      const token = await issue(alg);
      const decoded = jwt.decode(token, { complete: true })!;
      expect(decoded.header).toMatchObject({ alg, typ: 'at+jwt' });
      const claims = decoded.payload as Record<string, unknown>;
      expect(claims).toEqual({
        iss: server.config.ISSUER,
        cid: clients[alg]!.clientId,
        client_id: clients[alg]!.clientId,
        aud: [rs.audience],
        jti: expect.any(String),
        iat: expect.any(Number),
        exp: (claims.iat as number) + 7200,
        scope: 'search.read',
      });
      expect((await introspect(server, rs, token)).body).toMatchObject({
        active: true,
        scope: 'search.read',
        jti: claims.jti, // RFC 7662 §2.2: the JWT's own jti
      });
    },
  );

  it('verifies RS256/ES256 tokens against the published JWKS', async () => {
    const token = await issue('RS256');
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    const kid = jwt.decode(token, { complete: true })!.header.kid;
    const jwk = jwks.keys.find((k) => k.kid === kid)!;
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys.every((k) => !('d' in k))).toBe(true);
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    expect(jwt.verify(token, key, { algorithms: ['RS256'] })).toMatchObject({ scope: 'search.read' });
  });

  it('makes a revoked JWT inactive although its signature is still valid (jti deny list)', async () => {
    const token = await issue('HS256');
    expect((await introspect(server, rs, token)).body.active).toBe(true);
    const c = clients.HS256!;
    await postForm(`${server.url}/revoke`, { token }, { authorization: basic(c.clientId, c.secret!) });
    expect((await introspect(server, rs, token)).body).toEqual({ active: false });
  });

  it('refuses alg=none (RFC 8725 §3.2)', async () => {
    const real = jwt.decode(await issue('HS256')) as Record<string, unknown>;
    const forged = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(real)}.`;
    expect((await introspect(server, rs, forged)).body).toEqual({ active: false });
    const forgedSig = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(real)}.c2ln`;
    expect((await introspect(server, rs, forgedSig)).body).toEqual({ active: false });
  });

  it('refuses an HS256 token signed with the RSA public key (key confusion, RFC 8725 §3.1)', async () => {
    const token = await issue('RS256');
    const { header, payload } = jwt.decode(token, { complete: true })!;
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    const pem = createPublicKey({ key: jwks.keys.find((k) => k.kid === header.kid)!, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    const forged = jwt.sign(payload as object, pem, {
      algorithm: 'HS256',
      header: { alg: 'HS256', typ: 'at+jwt', kid: header.kid },
    });
    expect((await introspect(server, rs, forged)).body).toEqual({ active: false });
  });

  it('refuses an ID token presented as an access token (RFC 8725 §3.11, typ)', async () => {
    const user = await createUser(server);
    const web = await createClient(server);
    const { token } = await codeFlowTokens(server, web, user, 'openid search.read');
    expect((await introspect(server, rs, token.body.id_token as string)).body).toEqual({ active: false });
  });

  it('refuses a token signed by another issuer key', async () => {
    const claims = jwt.decode(await issue('HS256')) as Record<string, unknown>;
    const forged = jwt.sign(claims, 'another-secret-another-secret-1234', {
      algorithm: 'HS256',
      header: { alg: 'HS256', typ: 'at+jwt' },
    });
    expect((await introspect(server, rs, forged)).body).toEqual({ active: false });
  });

  it('keeps a retired signing key in the JWKS after rotation, so its tokens still verify', async () => {
    const before = await issue('RS256');
    const oldKid = jwt.decode(before, { complete: true })!.header.kid;
    const rotated = await admin(server, 'POST', '/signing-keys/rotate', { alg: 'RS256' });
    expect(rotated.status).toBe(200);
    const after = await issue('RS256');
    expect(jwt.decode(after, { complete: true })!.header.kid).not.toBe(oldKid);
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toContain(oldKid);
    expect((await introspect(server, rs, before)).body.active).toBe(true);
    expect((await introspect(server, rs, after)).body.active).toBe(true);
  });

  it('refuses to register a non-expiring JWT client', async () => {
    const response = await admin(server, 'POST', '/clients', {
      name: 'x',
      client_type: 'confidential',
      token_format: 'jwt',
      access_token_ttl_seconds: null,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_client_metadata');
  });

  it('stores signing keys encrypted at rest', async () => {
    const { rows } = await server.pool.query('SELECT private_key_sealed FROM signing_keys');
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) expect(row.private_key_sealed).not.toContain('PRIVATE KEY');
  });
});
