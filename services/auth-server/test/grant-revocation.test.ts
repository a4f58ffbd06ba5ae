import { revokeGrants } from '../src/domain/revocation/revoke';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import {
  admin,
  approvedCode,
  basic,
  codeFlowTokens,
  createClient,
  createUser,
  postForm,
  redeemCode,
} from './support/oauth-helpers';

/** A revoked grant mints nothing more: not from an unredeemed code, not from a refresh token. */
describe('token issuance after the grant was revoked (RFC 7009 §2.1, RFC 6749 §10.5)', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  /** An authorization code not yet redeemed, with its grant id. */
  async function pendingCode(user: { userId: string }) {
    const { code, verifier } = await approvedCode(server, client, user, 'openid offline_access search.read');
    const { rows } = await server.pool.query<{ grant_id: string }>(
      'SELECT grant_id FROM authorization_codes WHERE code_hash = $1',
      [server.core.ctx.hasher.hash(code)],
    );
    return { code, verifier, grantId: rows[0]!.grant_id };
  }

  const redeem = (code: string, verifier: string) =>
    redeemCode(server, client, {
      code,
      code_verifier: verifier,
    });

  const revokedGrant = { error: 'invalid_grant', error_description: 'authorization grant revoked' };

  it.each([
    ['grant', (_u: { userId: string }, grantId: string) => ({ grant_id: grantId })],
    ['user', (u: { userId: string }) => ({ user_id: u.userId })],
    ['client', () => ({ client_id: client.clientId })],
  ])('refuses a code whose grant an admin revoked by %s, and issues no token', async (_by, body) => {
    const user = await createUser(server);
    const { code, verifier, grantId } = await pendingCode(user);
    expect((await admin(server, 'POST', '/revocations', body(user, grantId))).status).toBe(200);
    const response = await redeem(code, verifier);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(revokedGrant);
    const { rows } = await server.pool.query('SELECT 1 FROM tokens WHERE grant_id = $1', [grantId]);
    expect(rows).toHaveLength(0);
  });

  it("refuses a code after the account page's revocation of the user's grants for the client", async () => {
    const user = await createUser(server);
    const { code, verifier, grantId } = await pendingCode(user);
    await revokeGrants(server.core.ctx, { user_id: user.userId, client_id: client.clientId }, 'test');
    expect((await redeem(code, verifier)).body).toEqual(revokedGrant);
    const { rows } = await server.pool.query('SELECT revoked_reason FROM grants WHERE grant_id = $1', [
      grantId,
    ]);
    expect(rows).toEqual([{ revoked_reason: 'test' }]);
  });

  it('refuses a refresh token whose grant was revoked by user, and issues no token', async () => {
    const user = await createUser(server);
    const { token } = await codeFlowTokens(server, client, user, 'openid offline_access search.read');
    expect(token.status).toBe(200);
    await admin(server, 'POST', '/revocations', { user_id: user.userId });
    const { rows: before } = await server.pool.query('SELECT count(*)::int AS n FROM tokens');
    const response = await postForm(
      `${server.url}/token`,
      { grant_type: 'refresh_token', refresh_token: token.body.refresh_token as string },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_grant', error_description: 'refresh token revoked' });
    const { rows: after } = await server.pool.query('SELECT count(*)::int AS n FROM tokens');
    expect(after).toEqual(before);
  });

  it('a code still works when another grant of the same user and client was revoked', async () => {
    const user = await createUser(server);
    const first = await pendingCode(user);
    const second = await pendingCode(user);
    await admin(server, 'POST', '/revocations', { grant_id: first.grantId });
    expect((await redeem(second.code, second.verifier)).status).toBe(200);
  });
});
