import { generateKeyPairSync } from 'node:crypto';
import { Issuer } from 'openid-client';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createResourceServer } from './support/oauth-helpers';

/** openid-client 5 (a certified relying party) authenticating with private_key_jwt (RFC 7523). */
describe('openid-client with private_key_jwt', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('gets client_credentials tokens and revokes one with its own ES256 and PS256 assertions', async () => {
    for (const [type, alg] of [
      ['ec', 'ES256'],
      ['rsa', 'PS256'],
    ] as const) {
      const { privateKey, publicKey } =
        type === 'ec'
          ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
          : generateKeyPairSync('rsa', { modulusLength: 2048 });
      const kid = `${type}-key`;
      const registered = await createClient(server, {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid }] },
      });
      const issuer = await Issuer.discover(server.url);
      expect(issuer.metadata.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
      const rp = new issuer.Client(
        {
          client_id: registered.clientId,
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: alg,
          revocation_endpoint_auth_method: 'private_key_jwt',
          revocation_endpoint_auth_signing_alg: alg,
        },
        { keys: [{ ...privateKey.export({ format: 'jwk' }), kid, alg }] },
      );
      const tokens = await rp.grant({ grant_type: 'client_credentials', scope: 'search.read' });
      expect(tokens.token_type).toBe('Bearer');
      expect(tokens.scope).toBe('search.read');
      await rp.revoke(tokens.access_token!);
      const row = await server.pool.query(
        'SELECT count(*)::int AS n FROM tokens WHERE client_id = $1 AND revoked_at IS NOT NULL',
        [registered.clientId],
      );
      expect(row.rows[0].n).toBe(1);
    }
  });
});
