import type { Browser } from 'playwright-core';
import { createClient } from '../../support/oauth-helpers';
import { startAuthServer, type RunningAuthServer } from '../../support/start-auth-server';
import { startCallbackServer, type CallbackServer } from './callback-server';
import { launchChromium } from './launch-chromium';

export interface PasskeySite {
  browser: Browser;
  server: RunningAuthServer;
  callback: CallbackServer;
  /** A native public client ("Flow-Matic") with a loopback redirect URI, for code flows. */
  clientId: string;
  /** http://localhost:<port>: WebAuthn refuses IP addresses as RP IDs. */
  issuer: string;
}

/** What the passkey browser tests run against: auth-server on localhost, a callback server, chromium. */
export async function startPasskeySite(): Promise<PasskeySite> {
  const callback = await startCallbackServer();
  const server = await startAuthServer({}, { issuerHost: 'localhost' });
  const { clientId } = await createClient(server, {
    name: 'Flow-Matic',
    client_type: 'public',
    application_type: 'native',
    redirect_uris: ['http://127.0.0.1/cb'],
    grant_types: ['authorization_code'],
  });
  const browser = await launchChromium();
  return { browser, server, callback, clientId, issuer: server.config.ISSUER };
}

export async function stopPasskeySite(site: Partial<PasskeySite>): Promise<void> {
  await site.browser?.close();
  await site.server?.stop();
  await site.callback?.stop();
}
