import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin } from '../support/oauth-helpers';
import { totpCode, userWithTotp } from '../web/support/totp-helpers';
import { artifactsDir } from './support/artifacts-dir';
import { checkConsolePage } from './support/check-console-page';
import { launchChromium } from './support/launch-chromium';
import { signInWithPassword } from './support/sign-in-with-password';

const ARTIFACTS = artifactsDir('admin-console-mfa');

/**
 * An admin with TOTP signs in to the console in chromium: password, the console's own second-factor step
 * (a wrong code first, then one computed here from the secret), the console's home. Each page at 360 and
 * 1280 px: a screenshot in test-artifacts/ and no serious or critical axe-core violation.
 */
describe('admin console second factor in chromium', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    server = await startAuthServer({ ADMIN_CONSOLE_REQUIRE_MFA: 'true' });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  const check = (name: string) => checkConsolePage(page, name, ARTIFACTS);

  it('signs an admin in with the password and a TOTP code', async () => {
    const user = await userWithTotp(server);
    expect((await admin(server, 'PUT', `/users/${user.userId}/roles/admin`)).status).toBe(204);

    await page.goto(`${server.url}/admin`);
    expect(page.url()).toBe(`${server.url}/admin/console/login`);
    await check('login');
    await signInWithPassword(page, user.username, 'correct horse battery');
    await page.waitForURL(`${server.url}/admin/console/login/second-factor`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Two-step verification');
    await check('second-factor');

    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('That code is not valid.');
    await check('second-factor-wrong');

    await page.getByLabel('Code from your authenticator app').fill(totpCode(user.secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/admin`);
    expect(await page.content()).toContain(user.username);
    await check('home');
    const { rows } = await server.pool.query('SELECT amr FROM admin_console_sessions WHERE user_id = $1', [
      user.userId,
    ]);
    expect(rows).toEqual([{ amr: ['pwd', 'otp', 'mfa'] }]);
  }, 180_000);
});
