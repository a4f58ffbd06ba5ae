import type { GrantRevoker } from './grant-revoker';

export interface AuthorizedAppStore {
  /** The user's unrevoked grants for this client. */
  findActiveGrantIds(userId: string, clientId: string): Promise<string[]>;
  /** Forgets the remembered consent, so the next authorization asks again. */
  deleteConsent(userId: string, clientId: string): Promise<boolean>;
  /** A code not yet redeemed under a revoked grant must not mint tokens afterwards. */
  deleteUnredeemedCodes(grantIds: readonly string[]): Promise<void>;
}

/**
 * The account page's "Revoke access": revokes every grant the user gave this client (and with them
 * every token) and forgets the consent. Returns how many grants were revoked.
 */
export async function revokeAuthorizedApp(
  deps: { store: AuthorizedAppStore; revoker: GrantRevoker },
  userId: string,
  clientId: string,
): Promise<{ grantsRevoked: number; consentDeleted: boolean }> {
  // Forget the consent first: a request racing the revocation then has to ask again instead of
  // silently minting a new grant from the old consent.
  const consentDeleted = await deps.store.deleteConsent(userId, clientId);
  const grantIds = await deps.store.findActiveGrantIds(userId, clientId);
  if (grantIds.length > 0) {
    await deps.revoker.revokeGrants(grantIds, 'revoked by user on the account page');
    await deps.store.deleteUnredeemedCodes(grantIds);
  }
  return { grantsRevoked: grantIds.length, consentDeleted };
}
