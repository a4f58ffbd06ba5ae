import { Issuer, errors } from 'openid-client';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createResourceServer, createUser } from './support/oauth-helpers';
import { DEVICE_GRANT } from './support/device-helpers';
import { inputValue, WebClient } from './web/support/web-client';

/** The person's side, over HTTP: sign in on /device, enter the code, decide. */
async function decideOnPage(server: RunningAuthServer, username: string, userCode: string, decision: string) {
  const web = new WebClient(server.url);
  const login = await (await web.get(`/device?user_code=${userCode}`)).text();
  const signedIn = await web.post('/login', {
    csrf_token: inputValue(login, 'csrf_token'),
    return_to: inputValue(login, 'return_to'),
    username,
    password: 'correct horse battery',
  });
  const entry = await (await web.get(signedIn.headers.get('location')!)).text();
  const consent = await (
    await web.post('/device', { csrf_token: inputValue(entry, 'csrf_token'), user_code: userCode })
  ).text();
  const done = await web.post('/device', {
    csrf_token: inputValue(consent, 'csrf_token'),
    user_code: inputValue(consent, 'user_code'),
    decision,
  });
  expect(done.status).toBe(200);
}

/** RFC 8628 from the relying party's side: openid-client's deviceAuthorization() and poll(). */
describe('openid-client device flow against the running server', () => {
  let server: RunningAuthServer;
  let issuer: Issuer;
  beforeAll(async () => {
    server = await startAuthServer({ DEVICE_POLL_INTERVAL_SECONDS: '1' }, { issuerIsUrl: true });
    await createResourceServer(server, ['search.read']);
    issuer = await Issuer.discover(server.url);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('discovers the endpoint, polls while the user approves, validates the ID token and refreshes', async () => {
    expect(issuer.metadata.device_authorization_endpoint).toBe(
      `${server.config.ISSUER}/device_authorization`,
    );
    const registered = await createClient(server, {
      redirect_uris: [],
      grant_types: [DEVICE_GRANT, 'refresh_token'],
    });
    const user = await createUser(server);
    const rp = new issuer.Client({
      client_id: registered.clientId,
      client_secret: registered.secret!,
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const handle = await rp.deviceAuthorization({ scope: 'openid profile offline_access search.read' });
    expect(handle.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(handle.verification_uri).toBe(`${server.config.ISSUER}/device`);
    expect(handle.expires_in).toBeGreaterThan(590);
    const polled = handle.poll();
    await decideOnPage(server, user.username, handle.user_code, 'allow');
    const tokens = await polled;
    // openid-client checked the ID token's signature, iss, aud, exp and iat.
    expect(tokens.claims()).toMatchObject({
      sub: user.userId,
      name: 'Ada Lovelace',
      aud: registered.clientId,
    });
    expect(tokens.scope).toBe('openid profile offline_access search.read');
    const refreshed = await rp.refresh(tokens.refresh_token!);
    expect(refreshed.claims().sub).toBe(user.userId);
    expect(await rp.userinfo(refreshed.access_token!)).toMatchObject({ sub: user.userId });
  });

  it('surfaces a denial to a public client as access_denied', async () => {
    const registered = await createClient(server, {
      client_type: 'public',
      redirect_uris: [],
      grant_types: [DEVICE_GRANT],
    });
    const user = await createUser(server);
    const rp = new issuer.Client({ client_id: registered.clientId, token_endpoint_auth_method: 'none' });
    const handle = await rp.deviceAuthorization({ scope: 'openid' });
    const polled = handle.poll();
    await decideOnPage(server, user.username, handle.user_code, 'deny');
    const error: unknown = await polled.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.OPError);
    expect((error as InstanceType<typeof errors.OPError>).error).toBe('access_denied');
  });
});
