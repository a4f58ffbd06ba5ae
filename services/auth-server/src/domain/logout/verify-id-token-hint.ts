import jwt from 'jsonwebtoken';
import type { SigningKeyStore } from '../tokens/signing-key-store';

/** What a verified id_token_hint tells the logout: who, for which clients, in which session. */
export interface IdTokenHint {
  sub: string;
  aud: string[];
  sid?: string;
}

/**
 * OIDC RP-Initiated Logout 1.0 §2: the hint must be an ID token we issued: RS256 under one of our keys
 * (the kid is only looked up in our own set, RFC 8725 §3.10), our `iss`, typ `JWT` (an access token
 * `at+jwt` or a logout token `logout+jwt` is not an ID token, RFC 8725 §3.11). Expiry is not checked: §2
 * lets the OP accept an expired hint, which is the usual case (ID tokens live an hour, sessions longer).
 * Returns undefined for anything else (never throws).
 */
export async function verifyIdTokenHint(
  keys: SigningKeyStore,
  issuer: string,
  token: string,
): Promise<IdTokenHint | undefined> {
  if (token.length > 8192) return undefined;
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string') return undefined;
  const { alg, typ, kid } = decoded.header;
  if (alg !== 'RS256' || (typ !== undefined && typ !== 'JWT') || !kid) return undefined;
  const key = await keys.findByKid(kid);
  if (!key || key.alg !== 'RS256') return undefined;
  try {
    const claims = jwt.verify(token, key.publicKey, {
      algorithms: ['RS256'],
      issuer,
      ignoreExpiration: true,
    }) as Record<string, unknown>;
    const aud = typeof claims.aud === 'string' ? [claims.aud] : claims.aud;
    if (typeof claims.sub !== 'string' || !Array.isArray(aud) || aud.length === 0) return undefined;
    if (!aud.every((a): a is string => typeof a === 'string')) return undefined;
    return { sub: claims.sub, aud, ...(typeof claims.sid === 'string' ? { sid: claims.sid } : {}) };
  } catch {
    return undefined;
  }
}
