import { Issuer, generators } from 'openid-client';
import { startAuthServer, type RunningAuthServer } from './support/start-auth-server';
import { createClient, createResourceServer, createUser } from './support/oauth-helpers';

describe('openid-client (certified relying party) against the running server', () => {
  let server: RunningAuthServer;
  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    await createResourceServer(server, ['search.read']);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('discovers, completes the code flow with PKCE (validating iss, ID token, nonce), refreshes and reads userinfo', async () => {
    const registered = await createClient(server);
    const user = await createUser(server);
    const issuer = await Issuer.discover(server.url);
    expect(issuer.metadata.issuer).toBe(server.config.ISSUER);
    const rp = new issuer.Client({
      client_id: registered.clientId,
      client_secret: registered.secret!,
      redirect_uris: ['https://app.example/cb'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const verifier = generators.codeVerifier();
    const nonce = generators.nonce();
    const state = generators.state();
    const authUrl = new URL(
      rp.authorizationUrl({
        scope: 'openid profile email offline_access search.read',
        code_challenge: generators.codeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
        state,
      }),
    );
    const request = await server.core.flow.parse(Object.fromEntries(authUrl.searchParams));
    const redirect = await server.core.flow.approve(
      request,
      { userId: user.userId, authTime: new Date() },
      request.scopes,
    );
    const params = rp.callbackParams(redirect);
    const tokens = await rp.callback('https://app.example/cb', params, {
      code_verifier: verifier,
      nonce,
      state,
    });
    expect(tokens.claims()).toMatchObject({ sub: user.userId, nonce, name: 'Ada Lovelace' });
    const refreshed = await rp.refresh(tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    // openid-client validated the refreshed ID token (signature, iss, aud, sub equal to the original).
    expect(refreshed.claims()).toMatchObject({ sub: user.userId, auth_time: tokens.claims().auth_time });
    expect(refreshed.claims()).not.toHaveProperty('nonce');
    const info = await rp.userinfo(refreshed.access_token!);
    expect(info).toMatchObject({ sub: user.userId, name: 'Ada Lovelace', email_verified: true });
  });
});
