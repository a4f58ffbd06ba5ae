import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, basic, pkce, postForm } from '../support/oauth-helpers';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { artifactsDir } from './support/artifacts-dir';
import { checkConsolePage } from './support/check-console-page';
import { codeFlowUrl } from './support/code-flow-url';
import { launchChromium } from './support/launch-chromium';
import { signInWithPassword } from './support/sign-in-with-password';

const ARTIFACTS = artifactsDir('admin-console');

/**
 * The admin console in chromium: an admin signs in, creates a confidential client with a redirect URI
 * (reading the secret shown once), and an ordinary user then completes the authorization code flow with
 * that client (login, consent, token exchange with the secret). Every console page at 360 and 1280 px:
 * a screenshot in test-artifacts/ and no serious or critical axe-core violation.
 */
describe('admin console in chromium', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let callback: CallbackServer;
  let context: BrowserContext;
  let page: Page;
  const adminUser = { username: 'console-admin', password: 'console admin password' };
  const user = { username: 'grace', password: 'compiler 1952 password' };

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startAuthServer();
    const id = (await admin(server, 'POST', '/users', adminUser)).body.user_id as string;
    expect((await admin(server, 'PUT', `/users/${id}/roles/admin`)).status).toBe(204);
    expect(
      (await admin(server, 'POST', '/users', { ...user, claims: { name: 'Grace Hopper' } })).status,
    ).toBe(201);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
    await callback?.stop();
  });

  const check = (name: string) => checkConsolePage(page, name, ARTIFACTS);

  it('an admin creates a client in the console and a user completes a code flow with it', async () => {
    const response = await page.goto(`${server.url}/admin`);
    expect(response!.headers()['x-frame-options']).toBe('DENY');
    expect(page.url()).toBe(`${server.url}/admin/console/login`);
    await check('login');
    await signInWithPassword(page, adminUser.username, adminUser.password);
    await page.waitForURL(`${server.url}/admin`);
    await check('home');

    await page.getByRole('link', { name: 'Clients', exact: true }).first().click();
    await check('clients-empty');
    await page.getByRole('link', { name: 'New client' }).click();
    await check('client-new');
    await page.getByLabel('Name', { exact: true }).fill('Console Notebook');
    await page.getByLabel('Client type').selectOption('confidential');
    await page.getByLabel('Application type').selectOption('native');
    await page.getByLabel('Redirect URIs').fill('http://127.0.0.1/cb');
    await page.getByLabel('Scopes').fill('openid profile');
    await page.getByRole('button', { name: 'Create client' }).click();
    const clientId = (await page.locator('#created-id').textContent())!;
    const secret = (await page.locator('#created-secret').textContent())!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    await check('client-secret');
    await page.getByRole('link', { name: 'Continue' }).click();
    expect(await page.content()).not.toContain(secret);
    await check('client-edit');
    await page.goto(`${server.url}/admin/console/clients`);
    await check('clients');

    // An ordinary user, in another browser context, through the real pages.
    const userContext = await browser.newContext();
    const userPage = await userContext.newPage();
    const { verifier, challenge } = pkce();
    await userPage.goto(
      codeFlowUrl(server.url, {
        clientId,
        redirectUri: `${callback.origin}/cb`,
        scope: 'openid profile',
        state: 'console-state',
        challenge,
      }),
    );
    await signInWithPassword(userPage, user.username, user.password);
    expect(await userPage.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Allow Console Notebook to access your account?',
    );
    await userPage.getByRole('button', { name: 'Allow' }).click();
    await userPage.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    expect(query.get('state')).toBe('console-state');
    const token = await postForm(
      `${server.url}/token`,
      {
        grant_type: 'authorization_code',
        code: query.get('code')!,
        redirect_uri: `${callback.origin}/cb`,
        code_verifier: verifier,
      },
      { authorization: basic(clientId, secret) },
    );
    expect(token.status).toBe(200);
    expect(typeof token.body.access_token).toBe('string');
    expect(typeof token.body.id_token).toBe('string');
    await userContext.close();

    // The rest of the console, with the grant and session the flow left.
    await page.goto(`${server.url}/admin/console/resource-servers`);
    await page.getByLabel('ID', { exact: true }).fill('notes-api');
    await page.getByLabel('Audience').fill('https://notes.example');
    await page.getByRole('button', { name: 'Create resource server' }).click();
    await check('resource-server-secret');
    await page.goto(`${server.url}/admin/console/resource-servers`);
    await check('resource-servers');
    await page.goto(`${server.url}/admin/console/users`);
    await check('users');
    await page.goto(`${server.url}/admin/console/grants?client_id=${encodeURIComponent(clientId)}`);
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(0);
    await check('grants');
    await page.goto(`${server.url}/admin/console/grants`);
    await page
      .getByRole('button', { name: /^End session / })
      .first()
      .click();
    await page.waitForURL(/done=ended/);
    expect(await page.getByRole('status').textContent()).toBe('Session ended.');
    await page.goto(`${server.url}/admin/console/keys`);
    await page.getByRole('button', { name: 'Rotate signing key' }).click();
    await page.waitForURL(/done=rotated/);
    await check('keys');
    await page.goto(`${server.url}/admin/console/audit`);
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(4);
    await check('audit');

    // German, as chosen by Accept-Language.
    const de = await browser.newContext({ locale: 'de-DE', extraHTTPHeaders: { 'accept-language': 'de' } });
    const dePage = await de.newPage();
    await dePage.goto(`${server.url}/admin`);
    expect(await dePage.getByRole('heading', { level: 1 }).textContent()).toBe('Admin-Konsole');
    await de.close();
  }, 300_000);
});
