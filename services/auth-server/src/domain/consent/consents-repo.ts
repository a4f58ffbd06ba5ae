/** Remembered consent per user and client (table consents, OIDC Core §3.1.2.4). */
export interface ConsentsRepo {
  /** The scopes this user approved for this client, or null when never asked (or revoked). */
  findConsent(userId: string, clientId: string): Promise<string[] | null>;
  /** The user claims approved by name (an OIDC Core §5.5 `claims` request); [] when none or never asked. */
  findConsentedClaims(userId: string, clientId: string): Promise<string[]>;
  /** Adds the scopes (and claims) to what was approved before (a narrower request never shrinks it). */
  saveConsent(
    userId: string,
    clientId: string,
    scopes: readonly string[],
    claims?: readonly string[],
  ): Promise<void>;
  deleteConsent(userId: string, clientId: string): Promise<boolean>;
}
