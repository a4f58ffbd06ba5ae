import { purgeExpired } from '../src/domain/tokens/purge-expired';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { basic, createClient, createResourceServer, postForm } from './support/oauth-helpers';
import { DEVICE_GRANT, deviceRows, startDevice } from './support/device-helpers';

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
    expect(await purgeExpired(server.core.ctx, 86_400)).toEqual({
      tokens: 1,
      codes: 0,
      devices: 0,
      pushed: 0,
      grants: 1,
    });
    const { rows } = await server.pool.query('SELECT client_id, expires_at FROM tokens ORDER BY client_id');
    expect(rows).toHaveLength(2);
    const grants = await server.pool.query('SELECT count(*)::int AS n FROM grants');
    expect(grants.rows[0].n).toBe(2);
  });

  it('deletes device authorizations expired past the grace period and keeps the others', async () => {
    const client = await createClient(server, { client_type: 'public', grant_types: [DEVICE_GRANT] });
    for (let i = 0; i < 3; i++) await startDevice(server, client, 'openid');
    const [first, second] = await deviceRows(server, client.clientId);
    await server.pool.query(
      `UPDATE device_authorizations SET expires_at = now() - interval '2 days' WHERE user_code_hash = $1`,
      [first!.user_code_hash],
    );
    await server.pool.query(
      `UPDATE device_authorizations SET expires_at = now() - interval '1 hour' WHERE user_code_hash = $1`,
      [second!.user_code_hash],
    );
    expect(await purgeExpired(server.core.ctx, 86_400)).toMatchObject({ devices: 1 });
    expect(await deviceRows(server, client.clientId)).toHaveLength(2);
  });
});
