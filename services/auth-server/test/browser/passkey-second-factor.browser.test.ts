import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { uniqueId } from '@acme/testkit';
import type { RunningAuthServer } from '../support/start-auth-server';
import { admin, pkce, postForm } from '../support/oauth-helpers';
import { addVirtualAuthenticator } from './support/add-virtual-authenticator';
import { artifactsDir } from './support/artifacts-dir';
import type { CallbackServer } from './support/callback-server';
import { checkAtWidths } from './support/check-at-widths';
import { codeFlowUrl } from './support/code-flow-url';
import { PAGE_WIDTHS } from './support/page-widths';
import { signInWithPassword } from './support/sign-in-with-password';
import { startPasskeySite, stopPasskeySite } from './support/start-passkey-site';

const ARTIFACTS = artifactsDir('passkey-second-factor');

/**
 * A passkey as the second factor in chromium, with the DevTools WebAuthn domain's virtual authenticator:
 * register it from the account page after a password sign-in, sign out, then a code flow with the
 * password and "Use a passkey" on the second-factor page; the ID token says pwd + hwk + mfa, acr phrh.
 * The page: axe, 360 and 1280 px screenshots, no horizontal scrolling; without JavaScript it says the
 * passkey needs it. The issuer is http://localhost:<port> (WebAuthn refuses IP addresses as RP IDs).
 */
describe('passkey as the second factor in chromium (virtual authenticator)', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let callback: CallbackServer;
  let clientId: string;
  let issuer: string;
  const password = 'second factor in chromium';

  beforeAll(async () => {
    ({ browser, server, callback, clientId, issuer } = await startPasskeySite());
  });
  afterAll(() => stopPasskeySite({ browser, server, callback }));

  let context: BrowserContext | undefined;
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** A context with chromium's virtual platform authenticator that verifies the user (WebAuthn domain). */
  async function withAuthenticator(): Promise<Page> {
    context = await browser.newContext({ viewport: PAGE_WIDTHS[1] });
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    return page;
  }

  async function newUser(): Promise<string> {
    const username = uniqueId('hopper-');
    expect((await admin(server, 'POST', '/users', { username, password })).status).toBe(201);
    return username;
  }

  const typePassword = (page: Page, username: string) => signInWithPassword(page, username, password);

  /** Signs in with the password (no second factor yet), adds a passkey, signs out. */
  async function userWithPasskey(page: Page): Promise<string> {
    const username = await newUser();
    await page.goto(`${issuer}/login?return_to=%2Faccount`);
    await typePassword(page, username);
    await page.waitForURL(`${issuer}/account`);
    await page.getByLabel('Name for the new passkey (optional)').fill('Virtual laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${issuer}/account?passkey=added#passkeys`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${issuer}/login`);
    return username;
  }

  async function checkPage(page: Page, name: string): Promise<void> {
    // Nothing inline (the CSP would block it): the one script is passkeys.js from our origin.
    const inline = await page.evaluate(() => ({
      styled: document.querySelectorAll('[style], style').length,
      scripts: Array.from(document.querySelectorAll('script')).map((s) =>
        s.src ? new URL(s.src).pathname : 'inline',
      ),
    }));
    expect(inline.styled).toBe(0);
    expect(inline.scripts).toEqual([expect.stringMatching(/^\/assets\/passkeys\.[0-9a-f]{12}\.js$/)]);
    await checkAtWidths(page, name, { dir: ARTIFACTS, widths: PAGE_WIDTHS, against: 'window' });
  }

  it('signs in with the password, then the passkey, through a code flow; the ID token says pwd+hwk', async () => {
    const page = await withAuthenticator();
    const username = await userWithPasskey(page);

    const { verifier, challenge } = pkce();
    await page.goto(
      codeFlowUrl(issuer, {
        clientId,
        redirectUri: `${callback.origin}/cb`,
        scope: 'openid',
        state: 's-2fa',
        nonce: 'n-2fa',
        challenge,
      }),
    );
    await typePassword(page, username);
    await page.waitForURL(`${issuer}/login/second-factor`);
    const use = page.getByRole('button', { name: 'Use a passkey' });
    await use.waitFor(); // shown by passkeys.js once it finds WebAuthn
    await expect(page.getByLabel('Code from your authenticator app').count()).resolves.toBe(0);
    await expect(page.locator('[data-passkey-unsupported]').isVisible()).resolves.toBe(false);
    await checkPage(page, 'second-factor-passkey');

    await use.click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    expect(query.get('state')).toBe('s-2fa');
    const token = await postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      client_id: clientId,
      redirect_uri: `${callback.origin}/cb`,
      code: query.get('code')!,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    // RFC 8176: the password, a device-bound key, two factor kinds; OpenID EAP phishing-resistant hardware.
    expect(jwt.decode(token.body.id_token as string)).toMatchObject({
      iss: issuer,
      aud: clientId,
      nonce: 'n-2fa',
      amr: ['pwd', 'hwk', 'mfa'],
      acr: 'phrh',
    });
  }, 120_000);

  it('without JavaScript the passkey-only second step says what it needs', async () => {
    const username = await userWithPasskey(await withAuthenticator());
    await context!.close();
    context = await browser.newContext({ javaScriptEnabled: false, viewport: PAGE_WIDTHS[0] });
    const page = await context.newPage();
    await page.goto(`${issuer}/login`);
    await typePassword(page, username);
    await page.waitForURL(`${issuer}/login/second-factor`);
    const note = page.locator('[data-passkey-unsupported]');
    await expect(note.isVisible()).resolves.toBe(true);
    await expect(note.textContent()).resolves.toContain('Using it needs JavaScript');
    await expect(page.getByRole('button', { name: 'Use a passkey' }).isVisible()).resolves.toBe(false);
    await page.screenshot({ path: join(ARTIFACTS, 'second-factor-no-javascript-360.png'), fullPage: true });
  }, 120_000);
});
