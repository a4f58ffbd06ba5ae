import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { basic, createClient, createUser, postForm } from '../support/oauth-helpers';
import { codeFlowPages, submitPassword } from './support/code-flow-pages';
import { signInAtLogin, submitSecondFactor, totpCode, userWithTotp } from './support/totp-helpers';
import { WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery';
const MFA = { amr: ['pwd', 'otp', 'mfa'], acr: 'urn:acme:acr:mfa' };

/** acr_values at /authorize (OIDC Core §3.1.2.1): step-up, unmet_authentication_requirements, PAR. */
describe('acr_values', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('steps a password-only session up for acr_values=mfa without asking for the password again', async () => {
    const user = await userWithTotp(server); // its browser signed in with the password alone, then enrolled
    const { browser } = user;
    const before = browser.cookies.get('auth_session');
    const flow = codeFlowPages(server, client, { acr_values: 'urn:acme:acr:mfa' });
    const asked = await browser.get(flow.path);
    expect(asked.status).toBe(303);
    expect(asked.headers.get('location')).toBe('/login/second-factor');
    const raised = await submitSecondFactor(browser, totpCode(user.secret, 1));
    expect(raised.status).toBe(303);
    expect(raised.headers.get('location')).toMatch(/^\/authorize\?/);
    expect(browser.cookies.get('auth_session')).not.toBe(before); // a new session id for the new level
    const { idToken } = await flow.redeem(await flow.follow(browser, raised));
    expect(idToken).toMatchObject(MFA);
    const { rows } = await server.pool.query('SELECT amr, acr FROM sessions WHERE user_id = $1', [
      user.userId,
    ]);
    expect(rows).toEqual([{ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:acme:acr:mfa' }]);
  });

  it('answers unmet_authentication_requirements at the client when the user has no second factor', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    const flow = codeFlowPages(server, client, { acr_values: 'urn:acme:acr:mfa' });
    const signedIn = await submitPassword(browser, await browser.get(flow.path), user.username, PASSWORD);
    const back = await browser.get(signedIn.headers.get('location')!);
    expect(back.status).toBe(303);
    const location = new URL(back.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://app.example/cb');
    expect(location.searchParams.get('error')).toBe('unmet_authentication_requirements');
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.get('iss')).toBe(server.config.ISSUER);
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('answers unmet_authentication_requirements for phr when TOTP is all the user has', async () => {
    const user = await userWithTotp(server);
    const back = await user.browser.get(codeFlowPages(server, client, { acr_values: 'phr' }).path);
    expect(back.status).toBe(303);
    expect(new URL(back.headers.get('location')!).searchParams.get('error')).toBe(
      'unmet_authentication_requirements',
    );
  });

  it('reads acr_values inside a pushed authorization request', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    await signInAtLogin(browser, user.username, PASSWORD);
    const pushed = await postForm(
      `${server.url}/par`,
      {
        response_type: 'code',
        redirect_uri: 'https://app.example/cb',
        scope: 'openid',
        state: 'p1',
        acr_values: 'urn:acme:acr:mfa',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      },
      { authorization: basic(client.clientId, client.secret!) },
    );
    expect(pushed.status).toBe(201);
    const back = await browser.get(
      `/authorize?client_id=${client.clientId}&request_uri=${encodeURIComponent(pushed.body.request_uri as string)}`,
    );
    expect(back.status).toBe(303);
    expect(new URL(back.headers.get('location')!).searchParams.get('error')).toBe(
      'unmet_authentication_requirements',
    );
  });
});
