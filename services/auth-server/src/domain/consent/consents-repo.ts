/** Remembered consent per user and client (table consents, OIDC Core §3.1.2.4). */
export interface ConsentsRepo {
  /** The scopes this user approved for this client, or null when never asked (or revoked). */
  findConsent(userId: string, clientId: string): Promise<string[] | null>;
  /** Adds the scopes to what was approved before (a narrower request never shrinks the consent). */
  saveConsent(userId: string, clientId: string, scopes: readonly string[]): Promise<void>;
  deleteConsent(userId: string, clientId: string): Promise<boolean>;
}
