/**
 * Revoking a grant must make every code and token issued under it inactive at once, including any
 * cached introspection answer (API-NOTES B1: node-oidc-provider checks the grant on every introspection).
 */
export interface GrantRevoker {
  /** Revokes every grant this user gave this client, in one statement; returns how many. */
  revokeUserClient(userId: string, clientId: string, reason: string): Promise<number>;
}
