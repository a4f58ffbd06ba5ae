import { uniqueId } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { authAdminPost, clientCredentialsToken, registerSearchStore } from '../support/auth-server-calls';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';

/**
 * search-store in front of a real auth-server (both in process on port 0, each on its own fresh database):
 * the resource server and the service accounts are registered through auth-server's admin API, and every
 * decision goes through /token and /token_info over HTTP. Introspection caching is off here, so a
 * revocation shows at once.
 */
describe('search-store with a real auth-server', () => {
  let auth: RunningAuthServer;
  let authStopped = false;
  let search: RunningSearchStore;
  let reader: { client_id: string; client_secret: string };
  let admin: { client_id: string; client_secret: string };
  /** Paths that no API serves: a request that passes authentication reaches routing, not a handler. */
  const probe = () => `/_rs_auth_probe_${uniqueId()}`;

  const adminApi = (path: string, body: object) => authAdminPost(auth, path, body);
  const registerClient = (scopes: string[]) =>
    adminApi('/admin/clients', {
      name: `search-store service account ${uniqueId()}`,
      client_type: 'confidential',
      grant_types: ['client_credentials'],
      response_types: [],
      scopes,
    }) as Promise<{ client_id: string; client_secret: string }>;
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const tokenFor = (client: { client_id: string; client_secret: string }) =>
    clientCredentialsToken(auth, client, undefined);
  const send = (method: string, path: string, authorization: string) =>
    fetch(`${search.url}${path}`, { method, headers: { authorization } });
  const reasonOf = async (response: Response) =>
    ((await response.json()) as { error: { reason: string } }).error.reason;

  beforeAll(async () => {
    auth = await startAuthServer();
    const scopes = ['search.read', 'search.write', 'search.admin'];
    const registered = await registerSearchStore(auth, 'search-store service account', scopes);
    reader = registered.client; // scope search.read
    admin = await registerClient(scopes);
    search = await startSearchStore(registered.env, { auth: 'real' });
  });
  afterAll(async () => {
    await search?.stop();
    if (!authStopped) await auth?.stop();
  });

  it('lets a service account in with Basic credentials and refuses what its scopes do not cover', async () => {
    const authorization = basic(reader.client_id, reader.client_secret);
    expect([401, 403, 503]).not.toContain((await send('GET', probe(), authorization)).status);
    const forbidden = await send('PUT', '/logs', authorization);
    expect(forbidden.status).toBe(403);
    expect(await reasonOf(forbidden)).toBe(
      `action [indices:admin/create] is unauthorized for user [${reader.client_id}] with effective roles ` +
        '[search.read] on indices [logs], this action is granted by the scope [search.admin]',
    );
  });

  it('lets a bearer token with search.admin through to an admin route (clone)', async () => {
    const token = await tokenFor(admin);
    const response = await send('PUT', `/_rs_auth_probe_${uniqueId()}/_clone/x`, `Bearer ${token}`);
    expect([401, 403, 503]).not.toContain(response.status);
  });

  it('answers 401 for a service account with a wrong secret', async () => {
    const response = await send('GET', '/logs/_search', basic(reader.client_id, 'wrong-secret'));
    expect(response.status).toBe(401);
    expect(await reasonOf(response)).toBe(
      `unable to authenticate user [${reader.client_id}] for REST request [/logs/_search]`,
    );
  });

  it('answers 401 to a bearer token as soon as its client is revoked', async () => {
    const victim = await registerClient(['search.read']);
    const token = await tokenFor(victim);
    expect([401, 403, 503]).not.toContain((await send('GET', probe(), `Bearer ${token}`)).status);
    await adminApi('/admin/revocations', { client_id: victim.client_id });
    const revoked = await send('GET', probe(), `Bearer ${token}`);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 401 to a token issued for another resource server', async () => {
    const suffix = uniqueId();
    await adminApi('/admin/resource-servers', {
      id: `other-${suffix}`,
      audience: `https://other-${suffix}.example`,
      scopes: [`other.read.${suffix}`],
    });
    const outsider = await registerClient([`other.read.${suffix}`]);
    const response = await send('GET', probe(), `Bearer ${await tokenFor(outsider)}`);
    expect(response.status).toBe(401);
  });

  it('answers 503 and lets nothing through once auth-server is gone', async () => {
    const token = await tokenFor(admin);
    await auth.stop();
    authStopped = true;
    const response = await send('GET', probe(), `Bearer ${token}`);
    expect(response.status).toBe(503);
    expect(await reasonOf(response)).toBe(
      'authentication service unavailable: auth-server is unreachable; the request was not authenticated',
    );
  });
});
