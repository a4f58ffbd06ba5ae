import type { GrantClaims } from '../grants/grant';
import type { Authentication } from '../sessions/authentication-methods';
import { idTokenAcr, requestedUserClaims, type ClaimsRequest } from './claims-request';

/**
 * What a grant keeps of its request's `claims` parameter (OIDC Core §5.5), decided once at approval: the
 * user claims asked for by name (the consent page showed them) and, when acr was asked for with values,
 * the one its ID tokens carry (§5.5.1.1), so a refresh's ID token says what the first one said.
 * null when the request had none.
 */
export function grantClaimsFor(
  claims: ClaimsRequest | undefined,
  authentication: Authentication | undefined,
): GrantClaims | null {
  if (!claims) return null;
  const { idToken, userinfo } = requestedUserClaims(claims);
  const acr = authentication ? idTokenAcr(claims, authentication.acr) : undefined;
  return { idToken, userinfo, ...(acr && acr !== authentication?.acr ? { acr } : {}) };
}
