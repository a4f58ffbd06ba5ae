import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient } from '../support/oauth-helpers';
import { DEVICE_GRANT, startDevice } from '../support/device-helpers';
import { artifactsDir } from './support/artifacts-dir';
import { launchChromium } from './support/launch-chromium';
import { PAGE_WIDTHS } from './support/page-widths';
import { seriousAxeViolations } from './support/serious-axe-violations';
import { signInWithPassword } from './support/sign-in-with-password';

const ARTIFACTS = artifactsDir('pages');
/** A 16×16 PNG (a solid square), uploaded through the admin API as the client's logo. */
const LOGO_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAHklEQVR4nGNgiPcmDZGpQdbvBkE0qmFUAzEaaJhaAah5ACAXrVHdAAAAAElFTkSuQmCC',
  'base64',
);

/**
 * The client's logo on the pages that name it beyond the first sign-in and consent: the device flow's
 * consent and result pages, and the login page shown again after a wrong password. In chromium at 360 and
 * 1280 px: the image loads (CSP allows it), its alt text is the client's name, axe finds no serious or
 * critical violation; a screenshot of each is kept in test-artifacts/.
 */
describe('client logo on device and login-after-error pages in chromium', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let client: { clientId: string };
  const user = { username: 'ada-logo', password: 'analytical engine 1843' };

  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    client = await createClient(server, {
      name: 'Smart Fridge',
      client_type: 'public',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:9/cb'],
      grant_types: ['authorization_code', DEVICE_GRANT],
    });
    const logo = await fetch(`${server.url}/admin/clients/${client.clientId}/logo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}`, 'content-type': 'image/png' },
      body: new Uint8Array(LOGO_PNG),
    });
    expect(logo.status).toBe(200);
    expect((await admin(server, 'POST', '/users', { ...user, claims: {} })).status).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signInAt(page: Page, url: string, password = user.password) {
    await page.goto(url);
    await signInWithPassword(page, user.username, password);
  }

  async function deviceConsent(page: Page) {
    const device = await startDevice(server, client, 'openid');
    await signInAt(page, String(device.verification_uri_complete));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForSelector('[data-user-code]');
  }

  const pages: [string, (page: Page) => Promise<void>][] = [
    ['logo-device-consent', deviceConsent],
    [
      'logo-device-done',
      async (page) => {
        await deviceConsent(page);
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForSelector('text=Device connected');
      },
    ],
    [
      'logo-login-error',
      async (page) => {
        const url = `${server.url}/authorize?${new URLSearchParams({
          client_id: client.clientId,
          response_type: 'code',
          scope: 'openid',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        })}`;
        await signInAt(page, url, 'not the password');
        await page.waitForSelector('[role="alert"]');
      },
    ],
  ];

  for (const [name, open] of pages) {
    it(`${name}: shows the loaded logo, no serious axe violation`, async () => {
      for (const viewport of PAGE_WIDTHS) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await open(page);
        const logo = page.locator('img.client-logo');
        expect(await logo.getAttribute('alt')).toBe('Smart Fridge');
        expect(await logo.getAttribute('src')).toMatch(/^\/client-logos\/[^/]+\/[0-9a-f]{32}\.png$/);
        await page.waitForFunction(
          () => (document.querySelector('img.client-logo') as HTMLImageElement).complete,
        );
        expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(16);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
        await page.screenshot({ path: join(ARTIFACTS, `${name}-${viewport.width}.png`), fullPage: true });
        const serious = await seriousAxeViolations(page);
        expect({ page: name, width: viewport.width, serious }).toEqual({
          page: name,
          width: viewport.width,
          serious: [],
        });
        await context.close();
      }
    });
  }
});
