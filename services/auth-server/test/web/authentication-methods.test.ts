import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { basic, createClient, createUser, postForm } from '../support/oauth-helpers';
import { codeFlowPages, submitPassword } from './support/code-flow-pages';
import { WebClient } from './support/web-client';

/** OIDC Core §2 amr/acr: a session records how the user signed in; its grants and ID tokens carry it. */
describe('amr and acr of a password sign-in', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let user: { userId: string; username: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('records pwd on the session and grant; the ID token, and the one issued on refresh, carry amr and acr', async () => {
    const browser = new WebClient(server.url);
    const flow = codeFlowPages(server, client);
    const signedIn = await submitPassword(
      browser,
      await browser.get(flow.path),
      user.username,
      'correct horse battery',
    );
    const { token, idToken } = await flow.redeem(await flow.follow(browser, signedIn));
    expect(idToken).toMatchObject({ amr: ['pwd'], acr: 'urn:acme:acr:1fa' });

    const { rows } = await server.pool.query(
      `SELECT s.amr AS session_amr, s.acr AS session_acr, g.amr, g.acr
         FROM sessions s JOIN grants g ON g.sid = s.sid WHERE s.user_id = $1`,
      [user.userId],
    );
    expect(rows).toEqual([
      { session_amr: ['pwd'], session_acr: 'urn:acme:acr:1fa', amr: ['pwd'], acr: 'urn:acme:acr:1fa' },
    ]);

    const refreshed = await postForm(
      `${server.url}/token`,
      { grant_type: 'refresh_token', refresh_token: token.refresh_token as string },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(refreshed.status).toBe(200);
    const again = jwt.decode(refreshed.body.id_token as string) as jwt.JwtPayload;
    expect(again).toMatchObject({ amr: ['pwd'], acr: 'urn:acme:acr:1fa', auth_time: idToken.auth_time });
  });

  it('discovery lists the acr values, weakest first, and the acr and amr claims', async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.acr_values_supported).toEqual(['urn:acme:acr:1fa', 'urn:acme:acr:mfa', 'phr', 'phrh']);
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['acr', 'amr']));
  });
});
