import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin } from '../support/oauth-helpers';
import { totpCode, userWithTotp } from '../web/support/totp-helpers';
import { launchChromium } from './support/launch-chromium';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'admin-console-mfa');
const WIDTHS = [360, 1280];

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
    mkdirSync(ARTIFACTS, { recursive: true });
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

  async function check(name: string): Promise<void> {
    const inline = await page.evaluate(() => document.querySelectorAll('[style], script, style').length);
    expect({ name, inline }).toEqual({ name, inline: 0 });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect({ name, width, overflow: overflow <= 0 }).toEqual({ name, width, overflow: true });
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
      const axe = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
        .analyze();
      const serious = axe.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect({ name, width, serious }).toEqual({ name, width, serious: [] });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('signs an admin in with the password and a TOTP code', async () => {
    const user = await userWithTotp(server);
    expect((await admin(server, 'PUT', `/users/${user.userId}/roles/admin`)).status).toBe(204);

    await page.goto(`${server.url}/admin`);
    expect(page.url()).toBe(`${server.url}/admin/console/login`);
    await check('login');
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
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
