import jwt from 'jsonwebtoken';
import type { SigningKeyStore } from '../tokens/signing-key-store';

/** OIDC Back-Channel Logout 1.0 §2.4: the one event a logout token carries. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** How long a logout token is accepted: minutes at most (§2.4 "short"); each attempt signs a fresh one. */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

/**
 * A logout token (§2.4): RS256 with our current key, `typ: logout+jwt` (§2.4, RFC 8725 §3.11: never
 * mistaken for an ID token), `aud` the client, `sub` and `sid`, the event, a `jti`, and no `nonce`
 * (§2.4: its absence tells it apart from an ID token).
 */
export function signLogoutToken(
  keys: SigningKeyStore,
  claims: { issuer: string; clientId: string; sub: string; sid: string | null; jti: string },
  now = new Date(),
): string {
  const key = keys.current('RS256');
  const iat = Math.floor(now.getTime() / 1000);
  return jwt.sign(
    {
      iss: claims.issuer,
      aud: claims.clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
      jti: claims.jti,
      sub: claims.sub,
      ...(claims.sid ? { sid: claims.sid } : {}),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    },
    key.privateKey,
    { algorithm: 'RS256', header: { alg: 'RS256', typ: 'logout+jwt', kid: key.kid } },
  );
}
