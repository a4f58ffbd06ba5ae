import type { IntrospectionResponse } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { ResourceServer } from '../clients/resource-server';

/**
 * RFC 9701 §5: the introspection response as a JWT signed with our current RS256 key (published in the
 * JWKS), `typ: token-introspection+jwt` (§5, RFC 8725 §3.11: never mistaken for an access or ID token),
 * `iss` us, `aud` the resource server that asked (its id, the Basic user it authenticated with), `iat`,
 * and the usual RFC 7662 answer, inactive ones included, in `token_introspection`. No top-level `sub`
 * or `exp`: the response is not a token about anyone (§8.1).
 */
export function signIntrospectionResponse(
  ctx: AuthContext,
  rs: ResourceServer,
  response: IntrospectionResponse,
): string {
  return ctx.jwt.signIntrospectionResponse({
    iss: ctx.config.ISSUER,
    aud: rs.id,
    iat: Math.floor(Date.now() / 1000),
    token_introspection: response,
  });
}
