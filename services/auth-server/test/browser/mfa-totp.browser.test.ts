import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import jwt from 'jsonwebtoken';
import type { Browser, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient, pkce, postForm } from '../support/oauth-helpers';
import { totpCode } from '../web/support/totp-helpers';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { launchChromium } from './support/launch-chromium';

/** Screenshots of the MFA pages at both widths, kept as test artifacts (not golden images). */
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'mfa');
const WIDTHS = [
  { width: 360, height: 740 },
  { width: 1280, height: 800 },
];

/**
 * Issue 25, TOTP in chromium as a person does it: set up an authenticator app from the account page (reading
 * the secret shown for manual entry), sign out, sign in with the password and a code computed here, and get
 * an ID token whose amr/acr say so. Each new page: 360 and 1280 px screenshots, axe without serious or
 * critical violations, nothing inline, no horizontal scrolling.
 */
describe('TOTP enrolment and sign-in in chromium', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let callback: CallbackServer;
  let clientId: string;
  const user = { username: 'grace', password: 'compiler for flow-matic' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    callback = await startCallbackServer();
    server = await startAuthServer({}, { issuerIsUrl: true });
    ({ clientId } = await createClient(server, {
      name: 'Harbor',
      client_type: 'public',
      application_type: 'native',
      grant_types: ['authorization_code'],
      redirect_uris: [`${callback.origin}/cb`],
    }));
    expect((await admin(server, 'POST', '/users', user)).status).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.stop();
  });

  async function checkPage(page: Page, name: string) {
    // Before the screenshot and axe, which add a caret style and a script to the DOM.
    const inline = await page.evaluate(() => document.querySelectorAll('[style], style, script').length);
    expect({ name, inline }).toEqual({ name, inline: 0 });
    for (const viewport of WIDTHS) {
      await page.setViewportSize(viewport);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ name, width: viewport.width, overflow }).toEqual({ name, width: viewport.width, overflow: 0 });
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${viewport.width}.png`), fullPage: true });
      const axe = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
        .analyze();
      const serious = axe.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect({ name, width: viewport.width, serious }).toEqual({ name, width: viewport.width, serious: [] });
    }
  }

  it('enrols from the account page, then signs in with password and code; the ID token says pwd+otp', async () => {
    const context = await browser.newContext({ viewport: WIDTHS[1] });
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/account`);

    await page.getByRole('link', { name: 'Manage two-step verification' }).click();
    await page.waitForURL(`${server.url}/account/totp`);
    await checkPage(page, 'totp-off');
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.locator('#totp-secret').textContent())!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // The QR code is our own SVG, from our origin, loaded under the page's CSP.
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img.totp-qr');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    await expect(page.getByRole('img', { name: 'QR code for your authenticator app' }).count()).resolves.toBe(
      1,
    );
    await checkPage(page, 'totp-setup');

    const activationCode = totpCode(secret);
    await page.getByLabel('6-digit code').fill(activationCode);
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.waitForSelector('#recovery-codes');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await checkPage(page, 'totp-recovery-codes');
    await page.goto(`${server.url}/account/totp`);
    await checkPage(page, 'totp-on');

    await page.goto(`${server.url}/account`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${server.url}/login`);

    const { verifier, challenge } = pkce();
    await page.goto(
      `${server.url}/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: `${callback.origin}/cb`,
        response_type: 'code',
        scope: 'openid',
        state: 'totp',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })}`,
    );
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/login/second-factor`);
    await checkPage(page, 'second-factor');
    await page.getByLabel('Code from your authenticator app').fill(activationCode); // used already
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForSelector('[role="alert"]');
    await checkPage(page, 'second-factor-error');
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);

    const code = new URL(page.url()).searchParams.get('code')!;
    const token = await postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      client_id: clientId,
      redirect_uri: `${callback.origin}/cb`,
      code,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    expect(jwt.decode(token.body.id_token as string)).toMatchObject({
      amr: ['pwd', 'otp', 'mfa'],
      acr: 'urn:acme:acr:mfa',
    });
    await context.close();
  }, 120_000);
});
