import argon2 from 'argon2';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { admin, basic, createClient, postForm } from './support/oauth-helpers';

describe('admin API (Bearer ADMIN_TOKEN)', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each([undefined, 'Bearer wrong', 'Basic abc'])(
    'refuses %s with 401 invalid_token',
    async (authorization) => {
      const response = await fetch(`${server.url}/admin/clients`, {
        headers: authorization ? { authorization } : {},
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="admin", error="invalid_token"');
      expect(await response.json()).toEqual({
        error: 'invalid_token',
        error_description: 'admin credential required',
      });
    },
  );

  it('creates a confidential client with a 256-bit base64url secret shown once and stored hashed', async () => {
    const created = await admin(server, 'POST', '/clients', {
      name: 'Web',
      client_type: 'confidential',
      redirect_uris: ['https://web.example/cb'],
      scopes: ['openid'],
    });
    expect(created.status).toBe(201);
    const secret = created.body.client_secret as string;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({
      client_type: 'confidential',
      application_type: 'web',
      grant_types: ['authorization_code'],
      token_format: 'opaque',
      access_token_ttl_seconds: 7200,
      refresh_token_ttl_seconds: null,
    });
    const fetched = await admin(server, 'GET', `/clients/${created.body.client_id as string}`);
    expect(fetched.body).not.toHaveProperty('client_secret');
    const { rows } = await server.pool.query('SELECT secret_hash FROM clients WHERE client_id = $1', [
      created.body.client_id,
    ]);
    expect(rows[0].secret_hash).toHaveLength(32);
    expect(rows[0].secret_hash.toString()).not.toContain(secret);
    const list = await admin(server, 'GET', '/clients');
    expect((list.body as unknown as Array<{ client_id: string }>).map((c) => c.client_id)).toContain(
      created.body.client_id,
    );
  });

  it.each([
    ['http://app.example/cb', 'web'],
    ['http://app.example/cb', 'native'],
    ['http://127.0.0.1/cb', 'web'],
    ['https://app.example/cb#x', 'web'],
    ['not a uri', 'web'],
  ])(
    'refuses the redirect URI %s for a %s client with invalid_redirect_uri (S15)',
    async (uri, applicationType) => {
      const response = await admin(server, 'POST', '/clients', {
        name: 'x',
        client_type: 'public',
        application_type: applicationType,
        redirect_uris: [uri],
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_redirect_uri');
    },
  );

  it('accepts http on loopback for a native client', async () => {
    const response = await admin(server, 'POST', '/clients', {
      name: 'cli',
      client_type: 'public',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
    expect(response.status).toBe(201);
    expect(response.body).not.toHaveProperty('client_secret');
  });

  it('refuses a client-chosen client_id and unknown fields (RFC 9700 §4.15)', async () => {
    const response = await admin(server, 'POST', '/clients', {
      name: 'x',
      client_type: 'public',
      client_id: 'alice',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_client_metadata');
  });

  it('changes only the fields a PATCH sends, and audits only those', async () => {
    const { clientId, body: created } = await createClient(server, {
      name: 'Partial',
      redirect_uris: ['https://app.example/cb', 'https://app.example/other'],
      post_logout_redirect_uris: ['https://app.example/bye'],
      response_types: ['code'],
      token_format: 'jwt',
      jwt_alg: 'RS256',
      access_token_ttl_seconds: 600,
    });
    const { created_at: _createdAt, client_secret: _secret, ...before } = created;
    // zod's partial() fills in absent fields' defaults (redirect_uris: [], scopes: []…): none may reach the client.
    const renamed = await admin(server, 'PATCH', `/clients/${clientId}`, { name: 'Partial 2' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ ...before, name: 'Partial 2' });
    expect((await admin(server, 'GET', `/clients/${clientId}`)).body).toMatchObject({
      ...before,
      name: 'Partial 2',
    });
    const { body } = await admin(server, 'GET', '/audit-events?limit=20');
    const updates = (body.events as { action: string; target_id: string; details: unknown }[]).filter(
      (event) => event.action === 'client.update' && event.target_id === clientId,
    );
    expect(updates.map((event) => event.details)).toEqual([{ fields: ['name'] }]);
  });

  it('deletes a client so its credentials stop working', async () => {
    const client = await createClient(server);
    expect((await admin(server, 'DELETE', `/clients/${client.clientId}`)).status).toBe(204);
    expect((await admin(server, 'GET', `/clients/${client.clientId}`)).status).toBe(404);
    const token = await postForm(
      `${server.url}/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(token.status).toBe(401);
  });

  it('creates a resource server with a secret shown once and refuses a duplicate id', async () => {
    const body = { id: 'search-store-test', audience: 'https://search.test', scopes: ['search.read'] };
    const created = await admin(server, 'POST', '/resource-servers', body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...body, secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect((await admin(server, 'POST', '/resource-servers', body)).status).toBe(409);
    const list = await admin(server, 'GET', '/resource-servers');
    expect(list.body).toEqual([body]);
  });

  it("creates a user with the login page's argon2id parameters (m=19 MiB, t=2, p=1) and never returns it", async () => {
    const created = await admin(server, 'POST', '/users', {
      username: 'grace',
      password: 'hopper-1906!',
      claims: { name: 'Grace' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      user_id: expect.any(String),
      username: 'grace',
      claims: { name: 'Grace' },
    });
    const { rows } = await server.pool.query('SELECT password_hash FROM users WHERE user_id = $1', [
      created.body.user_id,
    ]);
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await argon2.verify(rows[0].password_hash, 'hopper-1906!')).toBe(true);
    expect(
      (await admin(server, 'POST', '/users', { username: 'GRACE', password: 'another-pass' })).status,
    ).toBe(409);
  });

  it('refuses a revocation request naming zero or two subjects', async () => {
    expect((await admin(server, 'POST', '/revocations', {})).status).toBe(400);
    expect((await admin(server, 'POST', '/revocations', { client_id: 'a', user_id: 'b' })).status).toBe(400);
  });
});
