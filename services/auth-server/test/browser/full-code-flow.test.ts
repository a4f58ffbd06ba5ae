import type { Browser, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import {
  admin,
  createClient,
  createResourceServer,
  introspect,
  pkce,
  postForm,
} from '../support/oauth-helpers';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { codeFlowUrl } from './support/code-flow-url';
import { launchChromium } from './support/launch-chromium';
import { signInWithPassword } from './support/sign-in-with-password';

/**
 * The whole authorization code flow with the real protocol core, in Debian's chromium: login page →
 * consent page → redirect with code/state/iss → code exchange with PKCE → userinfo; deny; and the account
 * page's revocation reaching introspection at once.
 */
describe('authorization code flow with PKCE in chromium (real endpoints)', () => {
  let browser: Browser;
  let callback: CallbackServer;
  let server: RunningAuthServer;
  let client: { clientId: string };
  let rs: { id: string; secret: string };
  const user = { username: 'ada', password: 'analytical engine 1843' };

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startAuthServer();
    rs = await createResourceServer(server, ['search.read']);
    // A native public client: its loopback redirect URI matches on any port (RFC 8252 §7.3), which is
    // what lets the callback server listen on port 0. Public clients must use PKCE.
    client = await createClient(server, {
      name: 'Notebook',
      client_type: 'public',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const created = await admin(server, 'POST', '/users', {
      ...user,
      claims: { name: 'Ada Lovelace', email: 'ada@example.com', email_verified: true },
    });
    expect(created.status).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.stop();
  });

  function authorizeUrl(state: string, challenge: string, extra: Record<string, string> = {}): string {
    return codeFlowUrl(server.url, {
      clientId: client.clientId,
      redirectUri: `${callback.origin}/cb`,
      scope: 'openid profile email search.read',
      state,
      nonce: `n-${state}`,
      challenge,
      extra,
    });
  }

  async function signIn(page: Page): Promise<void> {
    await signInWithPassword(page, user.username, user.password);
  }

  async function exchange(code: string, verifier: string) {
    return postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      client_id: client.clientId,
      code,
      redirect_uri: `${callback.origin}/cb`,
      code_verifier: verifier,
    });
  }

  it('logs in, consents, exchanges the code with PKCE and reads userinfo', async () => {
    const { verifier, challenge } = pkce();
    const context = await browser.newContext();
    const page = await context.newPage();
    const login = await page.goto(authorizeUrl('s-allow', challenge));
    expect(login!.headers()['x-frame-options']).toBe('DENY');
    await signIn(page);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Allow Notebook to access your account?',
    );
    expect(await page.locator('li[data-scope="search.read"]').textContent()).toBe(
      'Search and read documents',
    );
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    expect(query.get('state')).toBe('s-allow');
    expect(query.get('iss')).toBe(server.config.ISSUER);
    const code = query.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const token = await exchange(code, verifier);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email search.read' });
    expect(typeof token.body.id_token).toBe('string');
    const idClaims = JSON.parse(
      Buffer.from(String(token.body.id_token).split('.')[1]!, 'base64url').toString(),
    ) as Record<string, unknown>;
    expect(idClaims).toMatchObject({ aud: client.clientId, nonce: 'n-s-allow', iss: server.config.ISSUER });

    const userinfo = await fetch(`${server.url}/userinfo`, {
      headers: { authorization: `Bearer ${String(token.body.access_token)}` },
    });
    expect(userinfo.status).toBe(200);
    const claims = (await userinfo.json()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: idClaims.sub, name: 'Ada Lovelace', email: 'ada@example.com' });

    // The same code a second time is refused (single use).
    expect((await exchange(code, verifier)).body.error).toBe('invalid_grant');
    await context.close();
  });

  it('Deny sends access_denied with the state and no code', async () => {
    const { challenge } = pkce();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl('s-deny', challenge, { prompt: 'consent' }));
    await signIn(page);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe('s-deny');
    expect(query.get('iss')).toBe(server.config.ISSUER);
    expect(query.get('code')).toBeNull();
    await context.close();
  });

  it('revoking the app on the account page makes its tokens inactive at once', async () => {
    const { verifier, challenge } = pkce();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl('s-revoke', challenge, { prompt: 'consent' }));
    await signIn(page);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const token = await exchange(callback.received.at(-1)!.get('code')!, verifier);
    const accessToken = String(token.body.access_token);
    expect((await introspect(server, rs, accessToken)).body.active).toBe(true);

    await page.goto(`${server.url}/account`);
    expect(await page.locator('.apps').getByRole('heading', { level: 3 }).textContent()).toBe('Notebook');
    await page.getByRole('button', { name: 'Revoke access for Notebook' }).click();
    await page.waitForURL(`${server.url}/account?revoked=1`);
    expect(await page.getByRole('status').textContent()).toBe('Access revoked.');

    expect((await introspect(server, rs, accessToken)).body).toEqual({ active: false });
    const userinfo = await fetch(`${server.url}/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(userinfo.status).toBe(401);
    // Consent was forgotten: a new request asks again instead of silently approving.
    await page.goto(authorizeUrl('s-after', challenge));
    expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(1);
    await context.close();
  });
});
