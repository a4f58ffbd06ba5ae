import jwt from 'jsonwebtoken';
import type { Browser, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient, pkce, postForm } from '../support/oauth-helpers';
import { totpCode } from '../web/support/totp-helpers';
import { artifactsDir } from './support/artifacts-dir';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { checkAtWidths } from './support/check-at-widths';
import { codeFlowUrl } from './support/code-flow-url';
import { launchChromium } from './support/launch-chromium';
import { PAGE_WIDTHS } from './support/page-widths';
import { signInWithPassword } from './support/sign-in-with-password';

/** Screenshots of the MFA pages at both widths, kept as test artifacts (not golden images). */
const ARTIFACTS = artifactsDir('mfa');

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
    await checkAtWidths(page, name, { dir: ARTIFACTS, widths: PAGE_WIDTHS, against: 'window' });
  }

  it('enrols from the account page, then signs in with password and code; the ID token says pwd+otp', async () => {
    const context = await browser.newContext({ viewport: PAGE_WIDTHS[1] });
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await signInWithPassword(page, user.username, user.password);
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
      codeFlowUrl(server.url, {
        clientId,
        redirectUri: `${callback.origin}/cb`,
        scope: 'openid',
        state: 'totp',
        challenge,
      }),
    );
    await signInWithPassword(page, user.username, user.password);
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
