import { purgeExpired } from '../src/domain/tokens/purge-expired';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, postForm } from './support/oauth-helpers';

describe('purgeExpired', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('deletes tokens expired past the grace period and keeps live and non-expiring ones', async () => {
    await createResourceServer(server, ['search.read']);
    const client = await createClient(server);
    const forever = await createClient(server, { access_token_ttl_seconds: null });
    for (const c of [client, client, forever])
      await postForm(
        `${server.url}/token`,
        { grant_type: 'client_credentials', scope: 'search.read' },
        { authorization: basic(c.clientId, c.secret!) },
      );
    await server.pool.query(
      `UPDATE tokens SET expires_at = now() - interval '2 days' WHERE token_hash = (SELECT token_hash FROM tokens WHERE client_id = $1 LIMIT 1)`,
      [client.clientId],
    );
    await server.pool.query(`UPDATE grants SET created_at = now() - interval '2 days'`);
    expect(await purgeExpired(server.core.ctx, 86_400)).toEqual({ tokens: 1, codes: 0, grants: 1 });
    const { rows } = await server.pool.query('SELECT client_id, expires_at FROM tokens ORDER BY client_id');
    expect(rows).toHaveLength(2);
    const grants = await server.pool.query('SELECT count(*)::int AS n FROM grants');
    expect(grants.rows[0].n).toBe(2);
  });
});
