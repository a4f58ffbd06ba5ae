import type { BrowserContext, Page } from 'playwright-core';

/** A credential as the DevTools WebAuthn domain reports it (the fields the tests read). */
export interface VirtualCredential {
  isResidentCredential: boolean;
  rpId?: string;
}

/**
 * Chromium's virtual platform authenticator on the page (DevTools WebAuthn domain): CTAP2, internal,
 * resident keys, user verification that always succeeds, presence simulated. Returns a reader of the
 * credentials it holds.
 */
export async function addVirtualAuthenticator(
  context: BrowserContext,
  page: Page,
): Promise<() => Promise<VirtualCredential[]>> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
}
