import { acrRank, requestedAcr, type Acr } from '../sessions/authentication-methods';
import type { AuthorizationRequest } from './authorization-flow';
import { essentialAcr } from './claims-request';

/**
 * The level an authorization request requires the session to be at: its acr_values' (OIDC Core
 * §3.1.2.1, as authentication-methods.ts reads them) and an essential `acr` in its `claims` parameter
 * (§5.5.1.1), the stronger of the two when both are present. undefined: no requirement (a voluntary acr
 * claim request is a preference, answered by the ID token's acr alone). An essential acr none of whose
 * values is ours was refused when the request was parsed.
 */
export function requiredAcr(request: Pick<AuthorizationRequest, 'acrValues' | 'claims'>): Acr | undefined {
  const levels = [requestedAcr(request.acrValues ?? []), essentialAcr(request.claims)].filter(
    (acr): acr is Acr => acr !== undefined && acr !== 'unmeetable',
  );
  return levels.sort((a, b) => acrRank(b) - acrRank(a))[0];
}
