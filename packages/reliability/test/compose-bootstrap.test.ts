import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, findFreePort } from '@acme/testkit';
import { startServiceProcess, type ServiceProcess } from '@acme/devstack/dist/service-process';
import { basic, call } from '../src/http';
import { repoRoot } from '../src/stack';

/**
 * What `docker compose up` does on a fresh database, with the real processes (no engine runs here):
 * auth-server registers search-store's resource server from BOOTSTRAP_SEARCH_STORE_SECRET, and
 * search-store, given the same secret, authenticates its introspection calls with no hand step.
 */
describe('docker compose bootstrap: auth-server registers search-store from the environment', () => {
  const adminToken = randomBytes(32).toString('base64url');
  const signingSecret = randomBytes(32).toString('base64url'); // the pepper: the same on every start
  const firstSecret = randomBytes(32).toString('base64url');
  let databaseUrl: string;
  let authPort: number;
  let auth: ServiceProcess | undefined;
  let search: ServiceProcess | undefined;
  let accessToken: string;

  const startAuth = async (secret: string) => {
    auth = await startServiceProcess({
      name: 'auth-server',
      script: join(repoRoot, 'services/auth-server/dist/main.js'),
      port: authPort,
      quiet: true,
      env: {
        ISSUER: `http://127.0.0.1:${authPort}`,
        DATABASE_URL: databaseUrl,
        TOKEN_SIGNING_SECRET: signingSecret,
        ADMIN_TOKEN: adminToken,
        LOG_LEVEL: 'error',
        BOOTSTRAP_SEARCH_STORE_SECRET: secret,
      },
    });
  };
  const stopAuth = async () => {
    await auth?.stop();
    auth = undefined;
  };
  const introspect = (secret: string) =>
    call(`http://127.0.0.1:${authPort}/token_info`, {
      method: 'POST',
      headers: {
        authorization: basic('search-store', secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: accessToken }).toString(),
    });
  const storedRow = async () => {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ secret_hash: Buffer; version: string; scopes: string[] }>(
        "SELECT secret_hash, xmin::text AS version, scopes FROM resource_servers WHERE id = 'search-store'",
      );
      return rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase('compose_bootstrap'); // empty: no migrations, no seed
    authPort = await findFreePort();
  });
  afterAll(async () => {
    await search?.stop();
    await stopAuth();
  });

  it('gives a working pair on an empty database: search-store authenticates with the shared secret', async () => {
    await startAuth(firstSecret);
    search = await startServiceProcess({
      name: 'search-store',
      script: join(repoRoot, 'services/search-store/dist/main.js'),
      port: await findFreePort(),
      quiet: true,
      env: {
        DATABASE_URL: databaseUrl,
        AUTH_SERVER_URL: `http://127.0.0.1:${authPort}`,
        INTROSPECTION_CLIENT_ID: 'search-store',
        INTROSPECTION_CLIENT_SECRET: firstSecret,
        LOG_LEVEL: 'error',
      },
    });
    // A client, as an operator creates one with `npm run admin -- clients create`.
    const client = await call(`http://127.0.0.1:${authPort}/admin/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'compose app',
        client_type: 'confidential',
        grant_types: ['client_credentials'],
        scopes: ['search.read', 'search.write'],
      }),
    });
    expect([client.status, client.text]).toEqual([201, expect.any(String)]);
    const { client_id: clientId, client_secret: clientSecret } = client.json as Record<string, string>;
    const token = await call(`http://127.0.0.1:${authPort}/token`, {
      method: 'POST',
      headers: {
        authorization: basic(clientId!, clientSecret!),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=search.read%20search.write',
    });
    expect(token.status).toBe(200);
    accessToken = (token.json as { access_token: string }).access_token;

    // search-store introspects the token at auth-server with the bootstrapped credential.
    const created = await call(`${search.url}/compose-books/_doc/1?refresh=true`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'bootstrapped' }),
    });
    expect(created.status).toBe(201);
    const introspection = await introspect(firstSecret);
    expect(introspection.status).toBe(200);
    expect(introspection.json).toMatchObject({ active: true, aud: ['search-store'] });

    // Stored like any resource-server secret: a 32-byte keyed hash, never the secret itself.
    const [row] = await storedRow();
    expect(row?.secret_hash).toHaveLength(32);
    expect(row?.secret_hash.toString('latin1')).not.toContain(firstSecret);
    expect(row?.scopes).toEqual(['search.read', 'search.write', 'search.admin']);
  }, 90_000);

  it('writes nothing when restarted with the same secret', async () => {
    const [before] = await storedRow();
    await stopAuth();
    await startAuth(firstSecret);
    const after = await storedRow();
    expect(after).toEqual([before]); // same hash and same row version (xmin): no UPDATE ran
    expect((await introspect(firstSecret)).json).toMatchObject({ active: true });
  }, 60_000);

  it('rotates the stored secret when restarted with another one: the old one stops working', async () => {
    const secondSecret = randomBytes(32).toString('base64url');
    await stopAuth();
    await startAuth(secondSecret);
    const old = await introspect(firstSecret);
    expect(old.status).toBe(401);
    expect(old.json).toMatchObject({ error: 'invalid_client' });
    const rotated = await introspect(secondSecret);
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ active: true });
  }, 60_000);
});
