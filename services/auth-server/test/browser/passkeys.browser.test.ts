import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningAuthServer } from '../support/start-auth-server';
import { uniqueId } from '@acme/testkit';
import { admin, pkce, postForm } from '../support/oauth-helpers';
import { addVirtualAuthenticator } from './support/add-virtual-authenticator';
import { artifactsDir } from './support/artifacts-dir';
import type { CallbackServer } from './support/callback-server';
import { codeFlowUrl } from './support/code-flow-url';
import { PAGE_WIDTHS } from './support/page-widths';
import { seriousAxeViolations } from './support/serious-axe-violations';
import { signInWithPassword } from './support/sign-in-with-password';
import { startPasskeySite, stopPasskeySite } from './support/start-passkey-site';

const ARTIFACTS = artifactsDir('passkeys');

/**
 * Passkeys in chromium with the DevTools WebAuthn domain's virtual authenticator (CTAP2, internal,
 * resident keys, user verification): register from the account page, sign out, sign in with the passkey
 * alone through a whole code flow, delete it and see it refused; the pages without JavaScript; axe and
 * screenshots of the account section and the login page. The issuer is http://localhost:<port>, since
 * WebAuthn refuses IP addresses as RP IDs.
 */
describe('passkeys in chromium (virtual authenticator)', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let callback: CallbackServer;
  let clientId: string;
  let issuer: string;
  const password = 'compiler a-0 1952';

  beforeAll(async () => {
    ({ browser, server, callback, clientId, issuer } = await startPasskeySite());
  });
  afterAll(() => stopPasskeySite({ browser, server, callback }));

  /** A context with chromium's virtual platform authenticator that verifies the user (WebAuthn domain). */
  async function withAuthenticator(options: { viewport?: { width: number; height: number } } = {}) {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const credentials = await addVirtualAuthenticator(context, page);
    return { context, page, credentials };
  }

  /** Each test its own user: passkeys of one test do not show in another's account. */
  async function newUser(): Promise<string> {
    const username = uniqueId('grace-');
    const created = await admin(server, 'POST', '/users', {
      username,
      password,
      claims: { name: 'Grace H.' },
    });
    expect(created.status).toBe(201);
    return username;
  }

  async function passwordSignIn(page: Page, username: string): Promise<void> {
    await page.goto(`${issuer}/login?return_to=%2Faccount`);
    await signInWithPassword(page, username, password);
  }

  async function addPasskey(page: Page, name: string): Promise<void> {
    await page.goto(`${issuer}/account`);
    await page.getByLabel('Name for the new passkey (optional)').fill(name);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${issuer}/account?passkey=added#passkeys`);
  }

  function authorizeUrl(state: string, challenge: string): string {
    const redirectUri = `${callback.origin}/cb`;
    return codeFlowUrl(issuer, {
      clientId,
      redirectUri,
      scope: 'openid profile',
      state,
      nonce: `n-${state}`,
      challenge,
    });
  }

  let context: BrowserContext | undefined;
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  it('registers a passkey, signs out, signs in with the passkey alone through a code flow', async () => {
    const session = await withAuthenticator();
    context = session.context;
    const { page } = session;
    await passwordSignIn(page, await newUser());
    await page.waitForURL(`${issuer}/account`);
    await addPasskey(page, 'Virtual laptop');
    await expect(page.locator('#passkeys h3').allTextContents()).resolves.toEqual(['Virtual laptop']);
    await expect(page.locator('#passkeys .notice').textContent()).resolves.toBe('Passkey added.');
    // A discoverable credential for our RP ID, held by the authenticator.
    const held = await session.credentials();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${issuer}/login`);

    const { verifier, challenge } = pkce();
    await page.goto(authorizeUrl('s-passkey', challenge));
    // No username typed: the authenticator offers the passkey (usernameless).
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
    const query = callback.received.at(-1)!;
    expect(query.get('state')).toBe('s-passkey');
    const token = await postForm(`${server.url}/token`, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: query.get('code')!,
      redirect_uri: `${callback.origin}/cb`,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    const claims = JSON.parse(
      Buffer.from(String(token.body.id_token).split('.')[1]!, 'base64url').toString(),
    ) as Record<string, unknown>;
    // RFC 8176: a device-bound key (hwk), user presence, and user verification making it multi-factor;
    // the OpenID EAP phishing-resistant hardware-protected class.
    expect(claims).toMatchObject({
      iss: issuer,
      aud: clientId,
      nonce: 'n-s-passkey',
      amr: ['hwk', 'user', 'mfa'],
      acr: 'phrh',
    });

    // The account page shows when it was last used.
    await page.goto(`${issuer}/account`);
    await expect(page.locator('#passkeys').textContent()).resolves.toContain('Last used on');
  });

  it('deleting a passkey stops it working', async () => {
    const session = await withAuthenticator();
    context = session.context;
    const { page } = session;
    await passwordSignIn(page, await newUser());
    await page.waitForURL(`${issuer}/account`);
    await addPasskey(page, 'To delete');
    await page.getByRole('button', { name: 'Delete passkey To delete' }).click();
    await page.waitForURL(`${issuer}/account?passkey=deleted#passkeys`);
    await expect(page.locator('#passkeys h3').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${issuer}/login`);

    // The authenticator still holds it; the server no longer knows it.
    expect(await session.credentials()).toHaveLength(1);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain(
      'Your passkey could not be used.',
    );
    expect(page.url()).toBe(`${issuer}/login/passkey`);
  });

  it('without JavaScript the login page is the password form alone and works', async () => {
    context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${issuer}/login?return_to=%2Faccount`);
    await expect(page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).resolves.toBe(
      false,
    );
    await passwordSignIn(page, await newUser());
    await page.waitForURL(`${issuer}/account`);
    await expect(page.getByRole('button', { name: 'Add a passkey' }).isVisible()).resolves.toBe(false);
    await expect(page.locator('[data-passkey-unsupported]').isVisible()).resolves.toBe(true);
  });

  it('login page and account section: no serious axe violation, screenshots at 360 and 1280 px', async () => {
    for (const viewport of PAGE_WIDTHS) {
      const session = await withAuthenticator({ viewport });
      context = session.context;
      const { page } = session;
      await page.goto(`${issuer}/login`);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, `login-${viewport.width}.png`), fullPage: true });
      expect(await seriousAxeViolations(page)).toEqual([]);

      await passwordSignIn(page, await newUser());
      await page.waitForURL(`${issuer}/account`);
      await addPasskey(page, `Phone ${viewport.width}`);
      await page.locator('#passkeys').screenshot({ path: join(ARTIFACTS, `account-${viewport.width}.png`) });
      expect(await seriousAxeViolations(page)).toEqual([]);
      await context.close();
      context = undefined;
    }
  });
});
