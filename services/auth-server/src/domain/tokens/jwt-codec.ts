import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { SigningKeyStore } from './signing-key-store';
import type { ActClaim } from './token-record';

export type AccessTokenAlg = 'HS256' | 'RS256' | 'ES256';
/** RFC 8725 §3.1: the algorithms we accept are fixed here; the token's `alg` header only picks among them. */
export const ACCESS_TOKEN_ALGS: readonly AccessTokenAlg[] = ['HS256', 'RS256', 'ES256'];

export interface AccessTokenClaims {
  sub?: string;
  iss: string;
  cid: string;
  client_id: string;
  aud: string[];
  jti: string;
  iat: number;
  exp: number;
  scope: string;
  /** RFC 8693 §4.1: present on tokens from a token exchange with an actor. */
  act?: ActClaim;
}

/**
 * Signs and verifies self-encoded tokens. Access tokens carry `typ: at+jwt` (RFC 9068 §2.1) and are
 * refused without it, so an ID token is never accepted as an access token (RFC 8725 §3.11–3.12).
 */
export function createJwtCodec(options: { issuer: string; hsKey: Buffer; keys: SigningKeyStore }) {
  const { issuer, hsKey, keys } = options;
  return {
    signAccessToken(claims: AccessTokenClaims, alg: AccessTokenAlg): string {
      if (alg === 'HS256')
        return jwt.sign(claims, hsKey, { algorithm: 'HS256', header: { alg, typ: 'at+jwt' } });
      const key = keys.current(alg);
      return jwt.sign(claims, key.privateKey, {
        algorithm: alg,
        header: { alg, typ: 'at+jwt', kid: key.kid },
      });
    },
    signIdToken(claims: Record<string, unknown>): string {
      const key = keys.current('RS256');
      return jwt.sign(claims, key.privateKey, {
        algorithm: 'RS256',
        header: { alg: 'RS256', typ: 'JWT', kid: key.kid },
      });
    },
    /** RFC 9701 §5: a JWT introspection response, RS256 from the JWKS. */
    signIntrospectionResponse(claims: Record<string, unknown>): string {
      const key = keys.current('RS256');
      return jwt.sign(claims, key.privateKey, {
        algorithm: 'RS256',
        header: { alg: 'RS256', typ: 'token-introspection+jwt', kid: key.kid },
      });
    },
    /** Verified claims of one of our access tokens, or undefined for anything else (never throws). */
    async verifyAccessToken(token: string): Promise<AccessTokenClaims | undefined> {
      const decoded = jwt.decode(token, { complete: true });
      if (!decoded || typeof decoded.payload === 'string') return undefined;
      const { alg, typ, kid } = decoded.header;
      if (typ !== 'at+jwt' || !ACCESS_TOKEN_ALGS.includes(alg as AccessTokenAlg)) return undefined;
      let key;
      if (alg === 'HS256') key = hsKey;
      else {
        const found = kid ? await keys.findByKid(kid) : undefined;
        if (!found || found.alg !== alg) return undefined; // HS/RS confusion: the key decides the algorithm
        key = found.publicKey;
      }
      try {
        const claims = jwt.verify(token, key, {
          algorithms: [alg as AccessTokenAlg],
          issuer,
        }) as AccessTokenClaims;
        return typeof claims.jti === 'string' && typeof claims.exp === 'number' ? claims : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
export type JwtCodec = ReturnType<typeof createJwtCodec>;

/** OIDC Core §3.1.3.6: at_hash is the left half of SHA-256 of the access token, base64url. */
export function atHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}
