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

describe('POST /token_info (RFC 7662) for resource servers', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string; username: string };
  let search: { id: string; secret: string; audience: string };
  let other: { id: string; secret: string; audience: string };
  const cc = (scope: string, extra: Record<string, string> = {}) =>
    postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope, ...extra },
      {
        authorization: basic(client.clientId, client.secret!),
      },
    );
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
    user = await createUser(server);
    search = await createResourceServer(server, ['search.read', 'search.write']);
    other = await createResourceServer(server, ['other.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers an active opaque token with the full claim set, no-store and JSON utf-8', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read search.write');
    const response = await introspect(server, search, token.body.access_token as string);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const now = Math.floor(Date.now() / 1000);
    expect(response.body).toEqual({
      active: true,
      scope: 'search.read search.write',
      client_id: client.clientId,
      username: user.username,
      token_type: 'Bearer',
      exp: expect.any(Number),
      iat: expect.any(Number),
      sub: user.userId,
      aud: [search.audience],
      iss: server.config.ISSUER,
      // An id derived from the stored hash (128 bits), never the token itself.
      jti: expect.stringMatching(/^[\w-]{22}$/),
    });
    expect(response.body.jti).not.toBe(token.body.access_token);
    expect(response.body.exp).toBe((response.body.iat as number) + 7200);
    expect(Math.abs((response.body.iat as number) - now)).toBeLessThanOrEqual(2);
  });

  it('shows each resource server only the scopes it serves (RFC 7662 §2.2)', async () => {
    const { token } = await codeFlowTokens(server, client, user, 'search.read other.read');
    const access = token.body.access_token as string;
    expect((await introspect(server, search, access)).body).toMatchObject({
      active: true,
      scope: 'search.read',
    });
    expect((await introspect(server, other, access)).body).toMatchObject({
      active: true,
      scope: 'other.read',
    });
  });

  it('is exactly {active:false} for a token whose audience is another resource server (RFC 8707, S10)', async () => {
    const issued = await cc('search.read other.read', { resource: other.audience });
    expect(issued.status).toBe(200);
    const access = issued.body.access_token as string;
    expect((await introspect(server, search, access)).body).toEqual({ active: false });
    expect((await introspect(server, other, access)).body).toMatchObject({
      active: true,
      aud: [other.audience],
    });
  });

  it('refuses an unregistered resource indicator with invalid_target', async () => {
    const issued = await cc('search.read', { resource: 'https://nowhere.example' });
    expect(issued.status).toBe(400);
    expect(issued.body).toEqual({
      error: 'invalid_target',
      error_description: 'unknown resource: https://nowhere.example',
    });
  });

  it('marks a client-credentials token by having no sub (RFC 9700 §4.15)', async () => {
    const issued = await cc('search.read');
    const view = await introspect(server, search, issued.body.access_token as string);
    expect(view.body.active).toBe(true);
    expect(view.body).not.toHaveProperty('sub');
    expect(issued.body.refresh_token).toBeUndefined();
  });

  it.each([
    ['unknown', 'x'.repeat(43)],
    ['malformed JWT', 'a.b.c'],
    ['empty-looking', '   '],
  ])('is {active:false} for an %s token', async (_label, token) => {
    const response = await introspect(server, search, token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ active: false });
  });

  it('is {active:false} for an expired token', async () => {
    const issued = await cc('search.read');
    await server.pool.query(
      `UPDATE tokens SET expires_at = now() - interval '1 second' WHERE client_id = $1 AND kind = 'access_token'`,
      [client.clientId],
    );
    expect((await introspect(server, search, issued.body.access_token as string)).body).toEqual({
      active: false,
    });
  });

  it('resolves a token despite a wrong token_type_hint', async () => {
    const issued = await cc('search.read');
    const response = await introspect(server, search, issued.body.access_token as string, {
      token_type_hint: 'refresh_token',
    });
    expect(response.body.active).toBe(true);
  });

  it('accepts a JSON body', async () => {
    const issued = await cc('search.read');
    const response = await fetch(`${server.url}/token_info`, {
      method: 'POST',
      headers: { authorization: basic(search.id, search.secret), 'content-type': 'application/json' },
      body: JSON.stringify({ token: issued.body.access_token }),
    });
    expect(await response.json()).toMatchObject({ active: true, scope: 'search.read' });
  });

  it('refuses duplicate parameters with invalid_request', async () => {
    const response = await fetch(`${server.url}/token_info`, {
      method: 'POST',
      headers: {
        authorization: basic(search.id, search.secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'token=a&token=b',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'duplicate parameter: token',
    });
  });

  it.each([
    ['a duplicate key', '{"token":"a","token":"b"}', 'duplicate parameter: token'],
    ['an escaped duplicate key', '{"token":"a", "\\u0074oken" :"b"}', 'duplicate parameter: token'],
    ['malformed JSON', '{"token":', 'malformed JSON body'],
  ])('refuses a JSON body with %s with invalid_request', async (_what, body, description) => {
    const response = await fetch(`${server.url}/token_info`, {
      method: 'POST',
      headers: { authorization: basic(search.id, search.secret), 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request', error_description: description });
  });

  it('refuses a missing token parameter with invalid_request', async () => {
    const response = await postForm(
      `${server.url}/token_info`,
      {},
      { authorization: basic(search.id, search.secret) },
    );
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });

  it.each([
    ['no credentials', undefined],
    ['a wrong secret', () => basic(search.id, 'wrong')],
    ['an unknown resource server', () => basic('nobody', search.secret)],
    ['a client credential', () => basic(client.clientId, client.secret!)],
    ['a Bearer header', () => 'Bearer abc'],
  ])(
    'answers %s with 401 invalid_client, WWW-Authenticate: Basic realm and the JSON envelope',
    async (_label, auth) => {
      const response = await postForm(
        `${server.url}/token_info`,
        { token: 'x' },
        auth ? { authorization: auth() } : {},
      );
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="token_info", charset="UTF-8"');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual({
        error: 'invalid_client',
        error_description: 'resource server authentication failed',
      });
    },
  );

  it('form-url-decodes the Basic id and secret (RFC 6749 §2.3.1)', async () => {
    const encodedId = search.id.replace(/r/, '%72');
    const header = `Basic ${Buffer.from(`${encodedId}:${search.secret}`).toString('base64')}`;
    const response = await postForm(`${server.url}/token_info`, { token: 'x' }, { authorization: header });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ active: false });
  });

  it('makes a token inactive once an admin revokes its user, its client or its grant', async () => {
    const byUser = await codeFlowTokens(server, client, user, 'search.read');
    const access = byUser.token.body.access_token as string;
    expect((await introspect(server, search, access)).body.active).toBe(true); // cache warm
    const revoked = await admin(server, 'POST', '/revocations', { user_id: user.userId });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_tokens).toBeGreaterThanOrEqual(1);
    expect((await introspect(server, search, access)).body).toEqual({ active: false });

    const another = await createClient(server);
    const byClient = await codeFlowTokens(server, another, user, 'search.read');
    expect((await introspect(server, search, byClient.token.body.access_token as string)).body.active).toBe(
      true,
    );
    await admin(server, 'POST', '/revocations', { client_id: another.clientId });
    expect((await introspect(server, search, byClient.token.body.access_token as string)).body).toEqual({
      active: false,
    });

    const issued = await cc('search.read');
    const { rows } = await server.pool.query(
      `SELECT grant_id FROM tokens WHERE client_id = $1 ORDER BY issued_at DESC LIMIT 1`,
      [client.clientId],
    );
    expect((await introspect(server, search, issued.body.access_token as string)).body.active).toBe(true);
    await admin(server, 'POST', '/revocations', { grant_id: rows[0].grant_id });
    expect((await introspect(server, search, issued.body.access_token as string)).body).toEqual({
      active: false,
    });
  });

  it('makes a token inactive when its client (and so its grant) is deleted', async () => {
    const doomed = await createClient(server);
    const { token } = await codeFlowTokens(server, doomed, user, 'search.read');
    expect((await introspect(server, search, token.body.access_token as string)).body.active).toBe(true);
    expect((await admin(server, 'DELETE', `/clients/${doomed.clientId}`)).status).toBe(204);
    expect((await introspect(server, search, token.body.access_token as string)).body).toEqual({
      active: false,
    });
  });

  it('makes a token inactive after the client revokes it at /revoke (RFC 7009)', async () => {
    const issued = await cc('search.read');
    const access = issued.body.access_token as string;
    expect((await introspect(server, search, access)).body.active).toBe(true);
    const revoke = await postForm(
      `${server.url}/revoke`,
      { token: access },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(revoke.status).toBe(200);
    expect((await introspect(server, search, access)).body).toEqual({ active: false });
  });

  it('keeps a non-expiring opaque token active without exp and never caches past a revocation', async () => {
    const forever = await createClient(server, { access_token_ttl_seconds: null });
    const issued = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials', scope: 'search.read' },
      {
        authorization: basic(forever.clientId, forever.secret!),
      },
    );
    expect(issued.body.expires_in).toBeUndefined();
    const view = await introspect(server, search, issued.body.access_token as string);
    expect(view.body.active).toBe(true);
    expect(view.body).not.toHaveProperty('exp');
    await admin(server, 'POST', '/revocations', { client_id: forever.clientId });
    expect((await introspect(server, search, issued.body.access_token as string)).body).toEqual({
      active: false,
    });
  });
});
