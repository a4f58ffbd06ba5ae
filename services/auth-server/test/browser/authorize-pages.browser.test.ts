import type { Browser } from 'playwright-core';
import { startWebServer, type WebServer } from '../web/support/start-web-server';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { launchChromium } from './support/launch-chromium';
import { signInWithPassword } from './support/sign-in-with-password';

/** The pages in a real browser, with the test double of the AuthorizationFlow (see full-code-flow for the real one). */
describe('login and consent pages in chromium', () => {
  let browser: Browser;
  let callback: CallbackServer;
  let server: WebServer;
  const password = 'browser test password';

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startWebServer({
      clients: [
        {
          clientId: 'browser-app',
          name: 'Browser App',
          redirectUris: [`${callback.origin}/cb`],
          scopes: ['openid', 'email', 'profile'],
        },
      ],
    });
    await server.createUser('kim', password);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.stop();
  });

  // prompt=consent: each test sees the consent page even after an earlier test's Allow was remembered.
  const authorizeUrl = (state: string) =>
    `${server.url}/authorize?${new URLSearchParams({
      client_id: 'browser-app',
      redirect_uri: `${callback.origin}/cb`,
      response_type: 'code',
      scope: 'openid email',
      state,
      prompt: 'consent',
    })}`;

  it('serves the login page with the anti-framing, referrer and no-store headers', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = (await page.goto(authorizeUrl('h1')))!;
    expect(response.status()).toBe(200);
    const headers = response.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['cache-control']).toBe('no-store');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    expect(await page.getByLabel('Username').getAttribute('name')).toBe('username');
    expect(await page.getByLabel('Password').getAttribute('name')).toBe('password');
    await context.close();
  });

  it('logs in, shows the consent page, and Allow lands on the callback with code and state', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl('state-allow'));
    await signInWithPassword(page, 'kim', password);
    await page.waitForSelector('button[name="decision"][value="allow"]');
    expect(await page.locator('li[data-scope="email"]').textContent()).toBe('See your email address');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    expect(query.get('state')).toBe('state-allow');
    expect(query.get('code')).toMatch(/^fake-code-\d+$/);
    expect(query.get('iss')).toBe(server.config.ISSUER);
    const cookies = await context.cookies(server.url);
    expect(cookies.find((c) => c.name === 'auth_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await context.close();
  });

  it('Deny lands on the callback with error=access_denied and the state', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl('state-deny'));
    await signInWithPassword(page, 'kim', password);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe('state-deny');
    expect(query.get('code')).toBeNull();
    await context.close();
  });

  it('refuses a tampered CSRF token with the 403 page and stays signed out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl('state-csrf'));
    await page.locator('input[name="csrf_token"]').evaluate((input: HTMLInputElement) => {
      input.value = 'forged-token';
    });
    await page.getByLabel('Username').fill('kim');
    await page.getByLabel('Password').fill(password);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/login`),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    expect(response.status()).toBe(403);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Form expired');
    expect((await context.cookies(server.url)).some((c) => c.name === 'auth_session')).toBe(false);
    await context.close();
  });

  it("refuses a form posted from another origin's page (no CSRF token) and keeps the session", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await signInWithPassword(page, 'kim', password);
    await page.waitForURL(`${server.url}/account`);
    callback.page(
      '/attack',
      `<form id="f" method="post" action="${server.url}/logout"></form><script>document.getElementById('f').submit()</script>`,
    );
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/logout`),
      page.goto(`${callback.origin}/attack`),
    ]);
    expect(response.status()).toBe(403);
    const account = await page.goto(`${server.url}/account`);
    expect(account!.url()).toBe(`${server.url}/account`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
    await context.close();
  });

  it("refuses to render the login page inside another site's frame (RFC 9700 §4.16)", async () => {
    callback.page('/frame', `<h1>framer</h1><iframe name="victim" src="${server.url}/login"></iframe>`);
    const context = await browser.newContext();
    const page = await context.newPage();
    const [framed] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/login`),
      page.goto(`${callback.origin}/frame`),
    ]);
    expect(framed.headers()['x-frame-options']).toBe('DENY');
    await page.waitForLoadState('load');
    const frame = page.frame({ name: 'victim' })!;
    // Chromium replaces a blocked frame with an error document: no login form is reachable in it.
    expect(await frame.locator('input[name="password"]').count()).toBe(0);
    await context.close();
  });
});
