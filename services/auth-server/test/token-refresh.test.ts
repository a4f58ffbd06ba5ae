import { createHash, createPublicKey, type JsonWebKey } from 'node:crypto';
import { PassThrough } from 'node:stream';
import jwt from 'jsonwebtoken';
import { createLogger } from '@acme/common';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  basic,
  codeFlowTokens,
  createClient,
  createResourceServer,
  createUser,
  introspect,
  postForm,
} from './support/oauth-helpers';

describe('POST /token with refresh_token (RFC 6749 §6, RFC 9700 §4.14.2)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string; username: string };
  let rs: { id: string; secret: string; audience: string };
  const logLines: string[] = [];
  const refresh = (token: string, extra: Record<string, string> = {}, who = client) =>
    postForm(
      `${server.url}/token`,
      { grant_type: 'refresh_token', refresh_token: token, ...extra },
      {
        authorization: basic(who.clientId, who.secret!),
      },
    );
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n').filter(Boolean)));
    server = await startAuthServer(
      { REFRESH_REUSE_GRACE_SECONDS: '0' },
      { logger: createLogger({ service: 'auth-server', stream }) },
    );
    client = await createClient(server);
    user = await createUser(server);
    rs = await createResourceServer(server, ['search.read', 'search.write']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('never shows a refresh token as active to a resource server (RFC 6749 §1.5)', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    expect((await introspect(server, rs, token.body.refresh_token as string)).body).toEqual({
      active: false,
    });
    expect((await introspect(server, rs, token.body.access_token as string)).body).toMatchObject({
      active: true,
      token_type: 'Bearer',
    });
  });

  it('rotates: each use returns a new refresh token and the old one turns inactive', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read search.write');
    const rt1 = token.body.refresh_token as string;
    const second = await refresh(rt1);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(second.body.refresh_token).toEqual(expect.any(String));
    expect(second.body.refresh_token).not.toBe(rt1);
    expect((await introspect(server, rs, rt1)).body).toEqual({ active: false });
    expect((await introspect(server, rs, second.body.access_token as string)).body.active).toBe(true);
  });

  it('revokes the whole family when a rotated refresh token is reused', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    const rt1 = token.body.refresh_token as string;
    const second = await refresh(rt1);
    const rt2 = second.body.refresh_token as string;
    const at2 = second.body.access_token as string;
    expect((await introspect(server, rs, at2)).body.active).toBe(true);
    const replay = await refresh(rt1);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token already used' });
    expect((await introspect(server, rs, at2)).body).toEqual({ active: false });
    expect((await introspect(server, rs, token.body.access_token as string)).body).toEqual({ active: false });
    expect((await refresh(rt2)).body.error).toBe('invalid_grant');
    const audit = logLines.filter(
      (l) => l.includes('"audit":"refresh_reuse"') || l.includes('"audit":"revocation"'),
    );
    expect(audit.length).toBeGreaterThanOrEqual(2);
    expect(logLines.join('\n')).not.toContain(rt1);
  });

  it('narrows scope on request and refuses a wider one with invalid_scope', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read search.write');
    const narrow = await refresh(token.body.refresh_token as string, { scope: 'search.read' });
    expect(narrow.body.scope).toBe('search.read');
    const wider = await refresh(narrow.body.refresh_token as string, { scope: 'search.read other.read' });
    expect(wider.status).toBe(400);
    expect(wider.body).toEqual({
      error: 'invalid_scope',
      error_description: 'scope exceeds the original grant',
    });
  });

  it('returns a new ID token with the original sub and auth_time and no nonce when the grant has openid (OIDC Core §12.2)', async () => {
    const { token } = await codeFlowTokens(
      server,
      client,
      user,
      'openid offline_access profile search.read',
      {
        nonce: 'n-0S6_WzA2Mj',
      },
    );
    const original = jwt.decode(token.body.id_token as string) as jwt.JwtPayload;
    expect(original.nonce).toBe('n-0S6_WzA2Mj');
    const refreshed = await refresh(token.body.refresh_token as string);
    expect(refreshed.status).toBe(200);
    const { header } = jwt.decode(refreshed.body.id_token as string, { complete: true }) ?? {};
    const jwks = (await (await fetch(`${server.url}/jwks`)).json()) as {
      keys: (JsonWebKey & { kid: string })[];
    };
    const jwk = jwks.keys.find((k) => k.kid === header?.kid);
    const claims = jwt.verify(
      refreshed.body.id_token as string,
      createPublicKey({ key: jwk!, format: 'jwk' }),
      { algorithms: ['RS256'], issuer: server.config.ISSUER, audience: client.clientId },
    ) as jwt.JwtPayload;
    expect(claims).toMatchObject({
      sub: user.userId,
      auth_time: original.auth_time,
      azp: client.clientId,
      name: 'Ada Lovelace',
      at_hash: createHash('sha256')
        .update(refreshed.body.access_token as string)
        .digest()
        .subarray(0, 16)
        .toString('base64url'),
    });
    expect(claims).not.toHaveProperty('nonce');
    // Narrowed to a scope without openid: no ID token; without openid in the grant: none either.
    const narrowed = await refresh(refreshed.body.refresh_token as string, { scope: 'search.read' });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body).not.toHaveProperty('id_token');
    const plain = await codeFlowTokens(server, client, user, 'search.read');
    expect((await refresh(plain.token.body.refresh_token as string)).body).not.toHaveProperty('id_token');
  });

  it("refuses another client's refresh token", async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    const thief = await createClient(server);
    const stolen = await refresh(token.body.refresh_token as string, {}, thief);
    expect(stolen.body).toEqual({ error: 'invalid_grant', error_description: 'unknown refresh token' });
  });

  it('expires a refresh token after inactivity when the client sets an idle lifetime', async () => {
    const idle = await createClient(server, { refresh_idle_ttl_seconds: 60 });
    const { token } = await codeFlowTokens(server, idle, user, 'search.read');
    await server.pool.query(
      `UPDATE tokens SET issued_at = now() - interval '61 seconds' WHERE client_id = $1`,
      [idle.clientId],
    );
    const response = await refresh(token.body.refresh_token as string, {}, idle);
    expect(response.body).toEqual({
      error: 'invalid_grant',
      error_description: 'refresh token expired after inactivity',
    });
  });

  it('gives no refresh token to a client without the refresh_token grant (short AT without RT)', async () => {
    const short = await createClient(server, {
      grant_types: ['authorization_code'],
      access_token_ttl_seconds: 300,
    });
    const { token } = await codeFlowTokens(server, short, user, 'search.read');
    expect(token.body.expires_in).toBe(300);
    expect(token.body.refresh_token).toBeUndefined();
    expect((await refresh('anything', {}, short)).body.error).toBe('unauthorized_client');
  });
});

describe('refresh reuse grace window', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer({ REFRESH_REUSE_GRACE_SECONDS: '30' });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers a retry of a just-rotated refresh token with the very same response, revoking nothing', async () => {
    const client = await createClient(server);
    const user = await createUser(server);
    const rs = await createResourceServer(server, ['search.read']);
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    const form = { grant_type: 'refresh_token', refresh_token: token.body.refresh_token as string };
    const auth = { authorization: basic(client.clientId, client.secret!) };
    const first = await postForm(`${server.url}/token`, form, auth);
    const retry = await postForm(`${server.url}/token`, form, auth);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect((await introspect(server, rs, first.body.access_token as string)).body.active).toBe(true);
  });
});

describe('refresh reuse with the default configuration', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('treats a replay right after rotation as reuse: invalid_grant, and the new tokens are revoked', async () => {
    const client = await createClient(server);
    const user = await createUser(server);
    const rs = await createResourceServer(server, ['search.read']);
    const { token } = await codeFlowTokens(server, client, user, 'search.read');
    const form = { grant_type: 'refresh_token', refresh_token: token.body.refresh_token as string };
    const auth = { authorization: basic(client.clientId, client.secret!) };
    const rotated = await postForm(`${server.url}/token`, form, auth);
    expect(rotated.status).toBe(200);
    const replay = await postForm(`${server.url}/token`, form, auth);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token already used' });
    expect((await introspect(server, rs, rotated.body.access_token as string)).body).toEqual({
      active: false,
    });
    const next = { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string };
    expect((await postForm(`${server.url}/token`, next, auth)).body.error).toBe('invalid_grant');
  });
});
