import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin } from '../support/oauth-helpers';
import { signInAtLogin, userWithTotp } from './support/totp-helpers';
import { WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery';

/** resetMfa (an operator's answer to a lost phone) through the admin API. */
describe('resetMfa', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('resetMfa through the admin API removes TOTP and the recovery codes', async () => {
    const user = await userWithTotp(server);
    expect(
      (await admin(server, 'POST', '/users/00000000-0000-4000-8000-000000000000/mfa/reset')).status,
    ).toBe(404);
    const reset = await admin(server, 'POST', `/users/${user.userId}/mfa/reset`);
    expect(reset).toEqual({
      status: 200,
      body: { user_id: user.userId, totp_removed: true, recovery_codes_removed: 10, passkeys_removed: 0 },
    });
    const next = await signInAtLogin(new WebClient(server.url), user.username, PASSWORD);
    expect(next.status).toBe(303);
    expect(next.headers.get('location')).toBe('/account');
    const unauthenticated = await fetch(`${server.url}/admin/users/${user.userId}/mfa/reset`, {
      method: 'POST',
    });
    expect(unauthenticated.status).toBe(401);
  });
});
