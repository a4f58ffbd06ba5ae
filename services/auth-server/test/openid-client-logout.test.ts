import { Issuer } from 'openid-client';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createUser } from './support/oauth-helpers';
import { RP_AFTER_LOGOUT, RP_CALLBACK, signInThroughClient, silentAuthorize } from './support/logout-helpers';
import { WebClient } from './web/support/web-client';

/** openid-client (certified RP) builds the logout URL from our discovery metadata: endSessionUrl(). */
describe('openid-client endSessionUrl() against the running server', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('discovers end_session_endpoint; its URL signs the browser out and returns to the RP with state', async () => {
    const registered = await createClient(server, {
      redirect_uris: [RP_CALLBACK],
      post_logout_redirect_uris: [RP_AFTER_LOGOUT],
      grant_types: ['authorization_code'],
    });
    const user = await createUser(server);
    const issuer = await Issuer.discover(server.url);
    expect(issuer.metadata.end_session_endpoint).toBe(`${server.config.ISSUER}/session/end`);
    const rp = new issuer.Client({
      client_id: registered.clientId,
      client_secret: registered.secret!,
      redirect_uris: [RP_CALLBACK],
      post_logout_redirect_uris: [RP_AFTER_LOGOUT],
      response_types: ['code'],
    });
    const browser = new WebClient(server.url);
    const { idToken } = await signInThroughClient(
      server,
      browser,
      { clientId: registered.clientId, secret: registered.secret! },
      user.username,
    );
    const url = new URL(rp.endSessionUrl({ id_token_hint: idToken, state: 'rp-state' }));
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(RP_AFTER_LOGOUT);
    const response = await browser.get(`${url.pathname}${url.search}`);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`${RP_AFTER_LOGOUT}?state=rp-state`);
    expect(await silentAuthorize(browser, registered.clientId)).toBe('login_required');
  });
});
