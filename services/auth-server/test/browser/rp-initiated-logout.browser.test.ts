import type { Browser, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { createClient, createUser, pkce, postForm } from '../support/oauth-helpers';
import { PASSWORD } from '../support/logout-helpers';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { codeFlowUrl } from './support/code-flow-url';
import { launchChromium } from './support/launch-chromium';
import { signInWithPassword } from './support/sign-in-with-password';

/** OpenID Connect RP-Initiated Logout in chromium: sign in, log out at /session/end, back to the RP. */
describe('RP-initiated logout in chromium', () => {
  let browser: Browser;
  let callback: CallbackServer;
  let server: RunningAuthServer;
  let client: { clientId: string };
  let user: { username: string };

  beforeAll(async () => {
    callback = await startCallbackServer();
    callback.page('/signed-out', '<h1>Signed out of the RP</h1>');
    server = await startAuthServer();
    client = await createClient(server, {
      name: 'Notebook',
      client_type: 'public',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
      post_logout_redirect_uris: [`${callback.origin}/signed-out`],
      grant_types: ['authorization_code'],
    });
    user = await createUser(server);
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
      scope: 'openid',
      state,
      nonce: `n-${state}`,
      challenge,
      extra,
    });
  }

  /** Signs in and consents in the page; returns the ID token the RP gets for the code. */
  async function signIn(page: Page, state: string): Promise<string> {
    const { verifier, challenge } = pkce();
    await page.goto(authorizeUrl(state, challenge));
    await signInWithPassword(page, user.username, PASSWORD);
    if (!page.url().startsWith(callback.origin)) await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const code = callback.received.at(-1)!.get('code')!;
    const token = await postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      client_id: client.clientId,
      code,
      redirect_uri: `${callback.origin}/cb`,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    return String(token.body.id_token);
  }

  async function silentResult(page: Page, state: string): Promise<string | null> {
    await page.goto(authorizeUrl(state, pkce().challenge, { prompt: 'none' }));
    await page.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    return query.get('error') ?? (query.get('code') ? 'code' : null);
  }

  it('with the id_token_hint: straight back to the registered URI with state, and the session is over', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const idToken = await signIn(page, 'in-1');
    expect(await silentResult(page, 'check-1')).toBe('code');
    await page.goto(
      `${server.url}/session/end?${new URLSearchParams({
        id_token_hint: idToken,
        post_logout_redirect_uri: `${callback.origin}/signed-out`,
        state: 'bye-1',
      })}`,
    );
    await page.waitForURL(`${callback.origin}/signed-out?state=bye-1`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Signed out of the RP');
    expect((await context.cookies(server.url)).map((c) => c.name)).not.toContain('auth_session');
    expect(await silentResult(page, 'after-1')).toBe('login_required');
    await context.close();
  });

  it('without a hint: the confirmation page, then back to the RP', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, 'in-2');
    await page.goto(
      `${server.url}/session/end?${new URLSearchParams({
        client_id: client.clientId,
        post_logout_redirect_uri: `${callback.origin}/signed-out`,
        state: 'bye-2',
      })}`,
    );
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign out?');
    // Asking signed nobody out (checked in another tab of the same browser).
    const tab = await context.newPage();
    expect(await silentResult(tab, 'still-2')).toBe('code');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${callback.origin}/signed-out?state=bye-2`);
    expect(await silentResult(page, 'after-2')).toBe('login_required');
    await context.close();
  });
});
