import { purgeExpired } from '../src/domain/tokens/purge-expired';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { admin, basic, createResourceServer, introspect, postForm, type Json } from './support/oauth-helpers';

async function call(
  server: RunningAuthServer,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // An unmounted route answers express's HTML 404.
  const json = response.headers.get('content-type')?.startsWith('application/json');
  return { status: response.status, headers: response.headers, body: (json ? JSON.parse(text) : {}) as Json };
}

async function initialToken(server: RunningAuthServer, options: Json = {}): Promise<string> {
  const issued = await admin(server, 'POST', '/initial-access-tokens', options);
  expect(issued.status).toBe(201);
  return issued.body.initial_access_token as string;
}

const serviceMetadata = {
  client_name: 'Billing service',
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: 'search.read',
  contacts: ['ops@billing.example'],
  logo_uri: 'https://billing.example/logo.png',
  software_statement_unknown_to_us: 'ignored',
};

describe('dynamic client registration (RFC 7591/7592)', () => {
  describe('off by default', () => {
    let server: RunningAuthServer;
    beforeAll(async () => {
      server = await startAuthServer();
    });
    afterAll(async () => server.stop());

    it('does not mount /register and does not list registration_endpoint', async () => {
      const token = await initialToken(server);
      expect((await call(server, 'POST', '/register', token, serviceMetadata)).status).toBe(404);
      expect((await call(server, 'GET', '/register/c_x', token)).status).toBe(404);
      const metadata = await call(server, 'GET', '/.well-known/openid-configuration', undefined);
      expect(metadata.body).not.toHaveProperty('registration_endpoint');
    });
  });

  describe('on', () => {
    let server: RunningAuthServer;
    let rs: { id: string; secret: string };
    beforeAll(async () => {
      server = await startAuthServer({ DYNAMIC_REGISTRATION_ENABLED: 'true' });
      rs = await createResourceServer(server, ['search.read']);
    });
    afterAll(async () => server.stop());

    it('lists registration_endpoint in discovery', async () => {
      const metadata = await call(server, 'GET', '/.well-known/oauth-authorization-server', undefined);
      expect(metadata.body.registration_endpoint).toBe(`${server.config.ISSUER}/register`);
    });

    it('registers, serves a client_credentials flow, reads, replaces and deletes a client', async () => {
      const created = await call(server, 'POST', '/register', await initialToken(server), serviceMetadata);
      expect(created.status).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      const clientId = created.body.client_id as string;
      const secret = created.body.client_secret as string;
      const registrationToken = created.body.registration_access_token as string;
      expect(created.body).toEqual({
        client_id: expect.stringMatching(/^c_/),
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        client_id_issued_at: expect.any(Number),
        client_secret_expires_at: 0,
        client_name: 'Billing service',
        application_type: 'web',
        redirect_uris: [],
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'search.read',
        post_logout_redirect_uris: [],
        require_pushed_authorization_requests: false,
        dpop_bound_access_tokens: false,
        contacts: ['ops@billing.example'],
        logo_uri: 'https://billing.example/logo.png',
        registration_access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        registration_client_uri: `${server.config.ISSUER}/register/${clientId}`,
      });
      expect(Math.abs((created.body.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(60);

      // Secrets are kept only as keyed hashes.
      const stored = await server.pool.query(
        `SELECT c.secret_hash, r.registration_token_hash, r::text AS registration_row, c::text AS client_row
         FROM clients c JOIN client_registrations r USING (client_id) WHERE client_id = $1`,
        [clientId],
      );
      expect(stored.rows[0].secret_hash).toHaveLength(32);
      expect(stored.rows[0].registration_token_hash).toHaveLength(32);
      expect(stored.rows[0].secret_hash.equals(stored.rows[0].registration_token_hash)).toBe(false);
      for (const clear of [secret, registrationToken]) {
        expect(stored.rows[0].client_row).not.toContain(clear);
        expect(stored.rows[0].registration_row).not.toContain(clear);
        expect(stored.rows[0].client_row).not.toContain(Buffer.from(clear).toString('hex'));
      }

      const issued = await postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials', scope: 'search.read' },
        { authorization: basic(clientId, secret) },
      );
      expect(issued.status).toBe(200);
      const accessToken = issued.body.access_token as string;
      expect((await introspect(server, rs, accessToken)).body).toMatchObject({
        active: true,
        client_id: clientId,
      });

      const read = await call(server, 'GET', `/register/${clientId}`, registrationToken);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ ...created.body, client_secret: undefined });
      expect(read.body).not.toHaveProperty('client_secret');

      const replaced = await call(server, 'PUT', `/register/${clientId}`, registrationToken, {
        client_id: clientId,
        client_secret: secret,
        client_name: 'Billing service v2',
        grant_types: ['client_credentials'],
        scope: 'search.read',
      });
      expect(replaced.status).toBe(200);
      // The whole metadata is replaced: fields not sent are gone.
      expect(replaced.body).toMatchObject({ client_id: clientId, client_name: 'Billing service v2' });
      expect(replaced.body).not.toHaveProperty('contacts');
      expect(replaced.body).not.toHaveProperty('logo_uri');
      expect(replaced.body).not.toHaveProperty('client_secret');
      // The registration access token was rotated: the old one no longer works.
      const rotated = replaced.body.registration_access_token as string;
      expect(rotated).not.toBe(registrationToken);
      expect((await call(server, 'GET', `/register/${clientId}`, registrationToken)).status).toBe(401);
      expect((await call(server, 'GET', `/register/${clientId}`, rotated)).body.client_name).toBe(
        'Billing service v2',
      );
      // The secret is kept.
      const again = await postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials', scope: 'search.read' },
        { authorization: basic(clientId, secret) },
      );
      expect(again.status).toBe(200);

      const deleted = await call(server, 'DELETE', `/register/${clientId}`, rotated);
      expect(deleted.status).toBe(204);
      expect((await introspect(server, rs, accessToken)).body).toEqual({ active: false });
      expect((await admin(server, 'GET', `/clients/${clientId}`)).status).toBe(404);
      expect(
        (
          await postForm(
            `${server.url}/token`,
            { grant_type: 'client_credentials' },
            { authorization: basic(clientId, secret) },
          )
        ).status,
      ).toBe(401);
      expect((await call(server, 'GET', `/register/${clientId}`, rotated)).status).toBe(401);
    });

    it('registers a public client (none) without a secret', async () => {
      const created = await call(server, 'POST', '/register', await initialToken(server), {
        redirect_uris: ['https://spa.example/cb'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      });
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('client_secret');
      expect(created.body).not.toHaveProperty('client_secret_expires_at');
      expect(created.body.token_endpoint_auth_method).toBe('none');
      const { rows } = await server.pool.query('SELECT secret_hash FROM clients WHERE client_id = $1', [
        created.body.client_id,
      ]);
      expect(rows[0].secret_hash).toBeNull();
    });

    it.each([
      ['http redirect URI', { redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
      ['fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
      ['unknown grant type', { grant_types: ['password'] }, 'invalid_client_metadata'],
      [
        'code without authorization_code',
        { grant_types: ['client_credentials'], response_types: ['code'] },
        'invalid_client_metadata',
      ],
      [
        'public client_credentials',
        { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
        'invalid_client_metadata',
      ],
      [
        'private_key_jwt without keys',
        { token_endpoint_auth_method: 'private_key_jwt' },
        'invalid_client_metadata',
      ],
      ['redirect_uris not an array', { redirect_uris: 'https://app.example/cb' }, 'invalid_client_metadata'],
      ['http logo_uri', { logo_uri: 'http://app.example/logo.png' }, 'invalid_client_metadata'],
    ])('refuses %s with 400 %s and does not spend the initial token', async (_label, metadata, error) => {
      const token = await initialToken(server);
      const refused = await call(server, 'POST', '/register', token, {
        redirect_uris: ['https://app.example/cb'],
        ...metadata,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(error);
      expect(typeof refused.body.error_description).toBe('string');
      const count = await server.pool.query('SELECT count(*)::int AS n FROM clients');
      // The single-use token still registers a valid client afterwards.
      const ok = await call(server, 'POST', '/register', token, {
        redirect_uris: ['https://app.example/cb'],
      });
      expect(ok.status).toBe(201);
      expect((await server.pool.query('SELECT count(*)::int AS n FROM clients')).rows[0].n).toBe(
        count.rows[0].n + 1,
      );
    });

    it.each([
      ['missing', undefined],
      ['unknown', 'not-a-real-initial-access-token'],
      ['the admin token', 'test-admin-token-0123456789abcdef01234567'],
    ])('refuses a %s initial access token with 401 invalid_token', async (_label, token) => {
      const refused = await call(server, 'POST', '/register', token, {
        redirect_uris: ['https://a.example/cb'],
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(refused.body.error).toBe('invalid_token');
    });

    it('spends a single-use initial token once and a counted one as many times as it allows', async () => {
      const single = await initialToken(server);
      const metadata = { redirect_uris: ['https://a.example/cb'] };
      expect((await call(server, 'POST', '/register', single, metadata)).status).toBe(201);
      expect((await call(server, 'POST', '/register', single, metadata)).status).toBe(401);
      const counted = await initialToken(server, { max_uses: 2 });
      const racing = await Promise.all(
        [1, 2, 3, 4].map(() => call(server, 'POST', '/register', counted, metadata)),
      );
      expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 401, 401]);
      const { rows } = await server.pool.query('SELECT token_hash FROM initial_access_tokens');
      for (const row of rows) expect(row.token_hash.toString('base64url')).not.toBe(counted);
    });

    it('refuses an expired initial token', async () => {
      const token = await initialToken(server, { expires_in: 60 });
      await server.pool.query("UPDATE initial_access_tokens SET expires_at = now() - interval '1 second'");
      expect((await call(server, 'POST', '/register', token, { redirect_uris: [] })).status).toBe(401);
    });

    it('answers a wrong registration token and an unknown client alike, 401 invalid_token', async () => {
      const created = await call(server, 'POST', '/register', await initialToken(server), serviceMetadata);
      const clientId = created.body.client_id as string;
      const other = await call(server, 'POST', '/register', await initialToken(server), serviceMetadata);
      for (const [method, path, token] of [
        ['GET', `/register/${clientId}`, 'wrong'],
        ['GET', `/register/${clientId}`, undefined],
        // Another client's registration token does not open this one.
        ['GET', `/register/${clientId}`, other.body.registration_access_token as string],
        ['PUT', `/register/${clientId}`, 'wrong'],
        ['DELETE', `/register/${clientId}`, 'wrong'],
        ['GET', '/register/c_unknown', created.body.registration_access_token as string],
      ] as const) {
        const refused = await call(
          server,
          method,
          path,
          token,
          method === 'PUT' ? { client_id: clientId } : undefined,
        );
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual({
          error: 'invalid_token',
          error_description: 'invalid registration access token',
        });
      }
      // Still there.
      expect((await admin(server, 'GET', `/clients/${clientId}`)).status).toBe(200);
    });

    it('refuses an update whose client_secret or client_id is not the registered one', async () => {
      const created = await call(server, 'POST', '/register', await initialToken(server), serviceMetadata);
      const clientId = created.body.client_id as string;
      const token = created.body.registration_access_token as string;
      const wrongSecret = await call(server, 'PUT', `/register/${clientId}`, token, {
        ...serviceMetadata,
        client_id: clientId,
        client_secret: 'not-the-secret',
      });
      expect(wrongSecret.status).toBe(400);
      expect(wrongSecret.body.error).toBe('invalid_client_metadata');
      const wrongId = await call(server, 'PUT', `/register/${clientId}`, token, {
        ...serviceMetadata,
        client_id: 'c_other',
      });
      expect(wrongId.status).toBe(400);
      // Neither changed anything, nor rotated the registration token.
      expect((await call(server, 'GET', `/register/${clientId}`, token)).body.client_name).toBe(
        'Billing service',
      );
    });

    it('does not open clients created by the admin API', async () => {
      const created = await admin(server, 'POST', '/clients', {
        name: 'Admin-made',
        client_type: 'public',
        redirect_uris: ['https://x.example/cb'],
      });
      expect(
        (await call(server, 'DELETE', `/register/${created.body.client_id as string}`, 'anything')).status,
      ).toBe(401);
    });

    it('purges initial access tokens a day after they expire', async () => {
      await initialToken(server);
      const expired = await admin(server, 'POST', '/initial-access-tokens', {});
      await server.pool.query(
        "UPDATE initial_access_tokens SET expires_at = now() - interval '2 days' WHERE id = $1",
        [expired.body.id],
      );
      const before = (await server.pool.query('SELECT count(*)::int AS n FROM initial_access_tokens')).rows[0]
        .n;
      await purgeExpired(server.core.ctx);
      const { rows } = await server.pool.query('SELECT id FROM initial_access_tokens');
      expect(rows).toHaveLength(before - 1);
      expect(rows.map((r) => r.id)).not.toContain(expired.body.id);
    });

    it('refuses bad initial-token parameters at the admin API', async () => {
      expect((await admin(server, 'POST', '/initial-access-tokens', { max_uses: 0 })).status).toBe(400);
      expect((await admin(server, 'POST', '/initial-access-tokens', { expires_in: 10 })).status).toBe(400);
    });
  });
});
