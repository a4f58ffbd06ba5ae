import type { ClaimsRequest } from '../authorize/claims-request';
import { requestedUserClaims } from '../authorize/claims-request';
import { claimNamesForScopes } from '../users/claims-for-scopes';

/**
 * The user claims a `claims` request (OIDC Core §5.5) asks for beyond what its scopes release: the consent
 * page lists them beside the scopes, and a remembered consent covers the request only if it covers them.
 * Sorted, each once.
 */
export function claimsToConsent(claims: ClaimsRequest | undefined, scopes: readonly string[]): string[] {
  const { idToken, userinfo } = requestedUserClaims(claims);
  const byScope = new Set(claimNamesForScopes(scopes));
  return [...new Set([...idToken, ...userinfo])].filter((name) => !byScope.has(name)).sort();
}

/** Whether the claims approved before (consents.claims) cover these. */
export function areClaimsConsented(wanted: readonly string[], approved: readonly string[]): boolean {
  const set = new Set(approved);
  return wanted.every((name) => set.has(name));
}
