import { uniqueId } from '@acme/testkit';
import { startAuthServer, type RunningAuthServer } from '../../../auth-server/test/support/start-auth-server';
import { clientCredentialsToken, registerSearchStore } from '../support/auth-server-calls';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';

/**
 * Basic requests with made-up service accounts are relayed to auth-server's /token; their failures must not
 * lock out search-store itself (issue 17, item 5): its own introspection and real service accounts keep
 * working after 40 of them (auth-server's default budget is 30 failures per address per minute).
 */
describe('search-store relaying failed Basic credentials to a real auth-server', () => {
  let auth: RunningAuthServer;
  let search: RunningSearchStore;
  let account: { client_id: string; client_secret: string };

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  /** A path no API serves: a request that passes authentication reaches routing, not 401/403/503. */
  const probe = (authorization: string) =>
    fetch(`${search.url}/_rs_auth_probe_${uniqueId()}`, { headers: { authorization } });

  beforeAll(async () => {
    auth = await startAuthServer();
    const registered = await registerSearchStore(auth, 'service account');
    account = registered.client;
    search = await startSearchStore(registered.env, { auth: 'real' });
  });
  afterAll(async () => {
    await search?.stop();
    await auth?.stop();
  });

  it('keeps real service accounts and bearer tokens working after 40 made-up users', async () => {
    for (let i = 0; i < 40; i += 1) {
      const response = await probe(basic(`nobody-${uniqueId()}`, 'guess'));
      expect(response.status).toBe(401);
    }
    expect([401, 403, 503]).not.toContain(
      (await probe(basic(account.client_id, account.client_secret))).status,
    );
    const access_token = await clientCredentialsToken(auth, account, undefined);
    expect([401, 403, 503]).not.toContain((await probe(`Bearer ${access_token}`)).status);
  });
});
