import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient } from '../support/oauth-helpers';
import { DEVICE_GRANT, startDevice } from '../support/device-helpers';
import { FIREFOX_LINUX, UserAgentClient } from '../support/user-agent-client';
import { inputValue } from '../web/support/web-client';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { artifactsDir } from './support/artifacts-dir';
import { launchChromium } from './support/launch-chromium';
import { PAGE_WIDTHS } from './support/page-widths';
import { seriousAxeViolations } from './support/serious-axe-violations';
import { signInWithPassword } from './support/sign-in-with-password';

/** Screenshots of every page at both widths, kept as test artifacts (not golden images). */
const ARTIFACTS = artifactsDir('pages');
/** The operator theme's primary colour, as chromium reports a computed colour. */
const THEME_PRIMARY = 'rgb(0, 95, 75)';
/** A 16×16 PNG logo (a solid square), uploaded through the admin API. */
const LOGO_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAHklEQVR4nGNgiPcmDZGpQdbvBkE0qmFUAzEaaJhaAah5ACAXrVHdAAAAAElFTkSuQmCC',
  'base64',
);

/**
 * Issue 25, the pages people see: each page in chromium at 360 px and 1280 px with the built-in design
 * and an operator theme, axe-core finding no serious or critical violation, no horizontal scrolling,
 * nothing inline (CSP 'self'), and a sign-in done with the keyboard alone.
 */
describe('page design in chromium', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let callback: CallbackServer;
  let themeDir: string;
  let clientId: string;
  let deviceClient: { clientId: string };
  const user = { username: 'margaret', password: 'apollo guidance computer' };
  /** Changes her password on the 'password-changed' page, so margaret's stays as it is. */
  const changer = { username: 'katherine', password: 'orbital mechanics by hand' };

  beforeAll(async () => {
    themeDir = mkdtempSync(join(tmpdir(), 'auth-theme-'));
    const themeFile = join(themeDir, 'theme.css');
    writeFileSync(
      themeFile,
      ':root { --auth-color-primary: #005f4b; --auth-color-primary-hover: #004536; }\n',
    );
    callback = await startCallbackServer();
    server = await startAuthServer(
      { UI_BRAND_NAME: 'Acme Cloud', UI_THEME_CSS_FILE: themeFile },
      { issuerIsUrl: true },
    );
    ({ clientId } = await createClient(server, {
      name: 'Mission Control',
      client_type: 'public',
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: [`${callback.origin}/cb`],
    }));
    expect((await admin(server, 'POST', '/users', { ...user, claims: { name: 'Margaret H.' } })).status).toBe(
      201,
    );
    expect((await admin(server, 'POST', '/users', { ...changer, claims: {} })).status).toBe(201);
    deviceClient = await createClient(server, {
      name: 'Terminal CLI',
      client_type: 'public',
      application_type: 'native',
      redirect_uris: [],
      grant_types: [DEVICE_GRANT],
    });
    // Mission Control's logo, uploaded (same origin): the sign-in and consent pages show it.
    const logo = await fetch(`${server.url}/admin/clients/${clientId}/logo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}`, 'content-type': 'image/png' },
      body: new Uint8Array(LOGO_PNG),
    });
    expect(logo.status).toBe(200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.stop();
    if (themeDir) rmSync(themeDir, { recursive: true, force: true });
  });

  const authorizeUrl = (state: string) =>
    `${server.url}/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: `${callback.origin}/cb`,
      response_type: 'code',
      scope: 'openid email profile',
      state,
      prompt: 'consent',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })}`;

  async function signIn(page: Page, state: string): Promise<void> {
    await page.goto(authorizeUrl(state));
    await signInWithPassword(page, user.username, user.password);
    await page.waitForSelector('button[name="decision"][value="allow"]');
  }

  /** The client's uploaded logo is on the page, loaded, its alt text the client's name. */
  async function expectLogoShown(page: Page): Promise<void> {
    const logo = page.locator('img.client-logo');
    expect(await logo.getAttribute('alt')).toBe('Mission Control');
    expect(await logo.getAttribute('src')).toMatch(/^\/client-logos\/[^/]+\/[0-9a-f]{32}\.png$/);
    await page.waitForFunction(
      () => (document.querySelector('img.client-logo') as HTMLImageElement).complete,
    );
    expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(16);
  }

  /** Another browser of `who` (Firefox on Linux), so the account page lists more than this session. */
  async function signInElsewhere(who: { username: string; password: string }): Promise<void> {
    const other = new UserAgentClient(server.url, FIREFOX_LINUX);
    const form = await (await other.get('/login')).text();
    const response = await other.post('/login', {
      csrf_token: inputValue(form, 'csrf_token'),
      return_to: '/account',
      username: who.username,
      password: who.password,
    });
    expect(response.status).toBe(303);
  }

  async function accountOf(page: Page, who: { username: string; password: string }): Promise<void> {
    await page.goto(`${server.url}/account`);
    await signInWithPassword(page, who.username, who.password);
    await page.waitForSelector('#current_password');
  }

  async function changePassword(page: Page, current: string, next: string): Promise<void> {
    await page.getByLabel('Current password').fill(current);
    await page.getByLabel('New password', { exact: true }).fill(next);
    await page.getByLabel('New password again').fill(next);
    await page.getByRole('button', { name: 'Change password' }).click();
  }

  /** Every page, reached as a person reaches it; each opens its page in `page`. */
  const pages: [string, (page: Page) => Promise<void>][] = [
    [
      'login',
      async (page) => {
        await page.goto(authorizeUrl('s-login'));
        await expectLogoShown(page);
      },
    ],
    [
      'login-error',
      async (page) => {
        await page.goto(authorizeUrl('s-error'));
        await signInWithPassword(page, user.username, 'wrong password');
        await page.waitForSelector('[role="alert"]');
      },
    ],
    [
      'consent',
      async (page) => {
        await signIn(page, 's-consent');
        await expectLogoShown(page);
      },
    ],
    [
      'account',
      async (page) => {
        await signInElsewhere(user);
        await signIn(page, 's-account');
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL(`${callback.origin}/cb?**`);
        await page.goto(`${server.url}/account`);
        await page.waitForSelector('h2');
        // The sessions list: this browser marked, the other one with its device and "End this session".
        expect(await page.locator('.sessions > li').count()).toBeGreaterThanOrEqual(2);
        expect(await page.locator('.sessions .badge').textContent()).toBe('This session');
        expect(await page.locator('.sessions h3', { hasText: 'Firefox · Linux' }).count()).toBeGreaterThan(0);
        expect(
          await page.getByRole('button', { name: /^End this session \(Firefox · Linux, signed in / }).count(),
        ).toBeGreaterThan(0);
      },
    ],
    [
      'password-refused',
      async (page) => {
        await accountOf(page, changer);
        await changePassword(page, 'not the password', 'a new password for orbit');
        await page.waitForSelector('#password-error');
      },
    ],
    [
      'password-changed',
      async (page) => {
        await accountOf(page, changer);
        const next = `${changer.password} ${Date.now()}`;
        await changePassword(page, changer.password, next);
        await page.waitForSelector('.notice');
        expect(await page.locator('.notice').textContent()).toBe(
          'Your password was changed. Your other sessions were signed out.',
        );
        changer.password = next;
      },
    ],
    [
      'device-confirm',
      async (page) => {
        const device = await startDevice(server, deviceClient, 'openid profile');
        await signIn(page, 's-device-confirm');
        await page.goto(`${server.url}/device?user_code=${device.user_code}`);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForSelector('[data-user-code]');
      },
    ],
    [
      'device',
      async (page) => {
        await signIn(page, 's-device');
        await page.goto(`${server.url}/device`);
        await page.waitForSelector('#user_code');
      },
    ],
    [
      'device-error',
      async (page) => {
        await signIn(page, 's-device-error');
        await page.goto(`${server.url}/device`);
        await page.getByLabel('Code shown on your device').fill('WRONGCODE');
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForSelector('[role="alert"]');
      },
    ],
    [
      'logout-confirm',
      async (page) => {
        await signIn(page, 's-logout');
        await page.goto(`${server.url}/session/end`);
        await page.waitForSelector('form[action="/session/end/confirm"]');
      },
    ],
    [
      'signed-out',
      async (page) => {
        await signIn(page, 's-signed-out');
        await page.goto(`${server.url}/session/end`);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForSelector('text=You are signed out');
      },
    ],
    [
      'error',
      async (page) => {
        await page.goto(`${server.url}/authorize?client_id=nobody&response_type=code`);
        await page.waitForSelector('h1');
      },
    ],
  ];

  async function checkPage(page: Page, name: string, width: number) {
    const layout = await page.evaluate(() => ({
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      inline: document.querySelectorAll('[style], style, script').length,
      lang: document.documentElement.lang,
      brand: document.querySelector('.brand')?.textContent,
      sheets: Array.from(document.querySelectorAll('link[rel="stylesheet"]')).map((l) =>
        new URL((l as HTMLLinkElement).href).pathname.replace(/\.[0-9a-f]{12}\.css$/, '.css'),
      ),
      button: (() => {
        const button = document.querySelector('button:not(.secondary), .button');
        return button ? getComputedStyle(button).backgroundColor : undefined;
      })(),
      main: getComputedStyle(document.querySelector('main')!).maxWidth,
    }));
    expect(layout).toMatchObject({
      overflow: 0,
      inline: 0,
      lang: 'en',
      brand: 'Acme Cloud',
      sheets: ['/assets/auth.css', '/assets/theme.css'],
    });
    // After the page's own checks: the screenshot (caret style) and axe (its script) add to the DOM.
    await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    const serious = await seriousAxeViolations(page);
    expect({ page: name, width, serious }).toEqual({ page: name, width, serious: [] });
    // The built-in design's card and the operator's colour both applied.
    expect(layout.main).toBe('448px');
    if (layout.button !== undefined) expect(layout.button).toBe(THEME_PRIMARY);
  }

  for (const [name, open] of pages) {
    it(`${name}: readable at 360 px and 1280 px, no serious axe violation, nothing inline`, async () => {
      for (const viewport of PAGE_WIDTHS) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await open(page);
        await checkPage(page, name, viewport.width);
        await context.close();
      }
    });
  }

  it('serves the stylesheets from its own origin, cached by content hash', async () => {
    const page = await (await fetch(authorizeUrl('s-css'))).text();
    const hrefs = [...page.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    expect(hrefs).toHaveLength(2);
    for (const href of hrefs) {
      expect(href).toMatch(/^\/assets\/(auth|theme)\.[0-9a-f]{12}\.css$/);
      const css = await fetch(`${server.url}${href}`);
      expect(css.status).toBe(200);
      expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(css.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(await (await fetch(`${server.url}${hrefs[1]!}`)).text()).toContain(
      '--auth-color-primary: #005f4b',
    );
    expect((await fetch(`${server.url}/assets/auth.000000000000.css`)).status).toBe(404);
    expect((await fetch(`${server.url}/assets/..%2fpackage.json`)).status).toBe(404);
  });

  it('signs in and consents with the keyboard alone, the focus always visible', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    await page.goto(authorizeUrl('s-keyboard'));
    /** The focused control, and whether its focus shows (WCAG 2.4.7): an outline of 2 px or more, or a box-shadow. */
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const style = getComputedStyle(element);
        const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
        return {
          id: element.id,
          text: element.textContent?.trim(),
          visible: outline || style.boxShadow !== 'none',
        };
      });
    const press = async (key: string, expected: { id?: string; text?: string }) => {
      await page.keyboard.press(key);
      expect(await focused()).toEqual({ id: expected.id ?? '', text: expected.text ?? '', visible: true });
    };

    await press('Tab', { id: 'username' });
    await page.keyboard.type(user.username);
    await press('Tab', { id: 'password' });
    await page.keyboard.type(user.password);
    await press('Tab', { text: 'Sign in' });
    await press('Shift+Tab', { id: 'password' });
    await press('Tab', { text: 'Sign in' });
    await page.keyboard.press('Enter');
    await page.waitForSelector('button[name="decision"][value="allow"]');

    await press('Tab', { text: 'Allow' });
    await press('Tab', { text: 'Deny' });
    await press('Shift+Tab', { text: 'Allow' });
    await page.keyboard.press('Space');
    await page.waitForURL(`${callback.origin}/cb?**`);
    expect(callback.received.at(-1)?.get('state')).toBe('s-keyboard');
    expect(callback.received.at(-1)?.get('code')).toBeTruthy();
    await context.close();
  });
});
