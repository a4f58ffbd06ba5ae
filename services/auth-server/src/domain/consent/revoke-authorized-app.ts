import type { GrantRevoker } from './grant-revoker';

export interface AuthorizedAppStore {
  /** Forgets the remembered consent, so the next authorization asks again. */
  deleteConsent(userId: string, clientId: string): Promise<boolean>;
}

/**
 * The account page's "Revoke access": revokes every grant the user gave this client (and with them
 * every token; their unredeemed codes are refused at the token endpoint) and forgets the consent.
 */
export async function revokeAuthorizedApp(
  deps: { store: AuthorizedAppStore; revoker: GrantRevoker },
  userId: string,
  clientId: string,
): Promise<{ grantsRevoked: number; consentDeleted: boolean }> {
  // Forget the consent first: a request racing the revocation then has to ask again instead of
  // silently minting a new grant from the old consent.
  const consentDeleted = await deps.store.deleteConsent(userId, clientId);
  const grantsRevoked = await deps.revoker.revokeUserClient(
    userId,
    clientId,
    'revoked by user on the account page',
  );
  return { grantsRevoked, consentDeleted };
}
