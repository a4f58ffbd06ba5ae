import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient } from '../support/oauth-helpers';
import { startCallbackServer, type CallbackServer } from './support/callback-server';
import { launchChromium } from './support/launch-chromium';

/** Screenshots of every page at both widths, kept as test artifacts (not golden images). */
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'pages');
const WIDTHS = [
  { width: 360, height: 740 },
  { width: 1280, height: 800 },
];
/** The operator theme's primary colour, as chromium reports a computed colour. */
const THEME_PRIMARY = 'rgb(0, 95, 75)';

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
  const user = { username: 'margaret', password: 'apollo guidance computer' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
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
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('button[name="decision"][value="allow"]');
  }

  /** Every page, reached as a person reaches it; each opens its page in `page`. */
  const pages: [string, (page: Page) => Promise<void>][] = [
    ['login', async (page) => void (await page.goto(authorizeUrl('s-login')))],
    [
      'login-error',
      async (page) => {
        await page.goto(authorizeUrl('s-error'));
        await page.getByLabel('Username').fill(user.username);
        await page.getByLabel('Password').fill('wrong password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForSelector('[role="alert"]');
      },
    ],
    ['consent', (page) => signIn(page, 's-consent')],
    [
      'account',
      async (page) => {
        await signIn(page, 's-account');
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL(`${callback.origin}/cb?**`);
        await page.goto(`${server.url}/account`);
        await page.waitForSelector('h2');
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
    const axe = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
      .analyze();
    const serious = axe.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect({ page: name, width, serious }).toEqual({ page: name, width, serious: [] });
    // The built-in design's card and the operator's colour both applied.
    expect(layout.main).toBe('448px');
    if (layout.button !== undefined) expect(layout.button).toBe(THEME_PRIMARY);
  }

  for (const [name, open] of pages) {
    it(`${name}: readable at 360 px and 1280 px, no serious axe violation, nothing inline`, async () => {
      for (const viewport of WIDTHS) {
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
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const style = getComputedStyle(element);
        return {
          id: element.id,
          text: element.textContent?.trim(),
          outline: style.outlineStyle,
          width: parseFloat(style.outlineWidth),
        };
      });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ id: 'username', outline: 'solid' });
    expect((await focused()).width).toBeGreaterThanOrEqual(2);
    await page.keyboard.type(user.username);
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ id: 'password' });
    await page.keyboard.type(user.password);
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ text: 'Sign in', outline: 'solid' });
    await page.keyboard.press('Enter');
    await page.waitForSelector('button[name="decision"][value="allow"]');
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ text: 'Allow', outline: 'solid' });
    await page.keyboard.press('Enter');
    await page.waitForURL(`${callback.origin}/cb?**`);
    expect(callback.received.at(-1)?.get('state')).toBe('s-keyboard');
    expect(callback.received.at(-1)?.get('code')).toBeTruthy();
    await context.close();
  });
});
