import type { KeyObject } from 'node:crypto';
import jwt, { type Algorithm, type JwtPayload } from 'jsonwebtoken';
import { OAuthError } from '../errors/oauth-error';
import { parseScope, type Principal } from './principal';

/**
 * Verifies self-encoded (JWT) access tokens in one step, as the product spec asks: signature, then
 * expiry, then the claims, stopping at the first failure. Errors are the product spec's, exactly:
 * - expired                 → 401 {"error":"expired","error_description":"token has expired"}
 * - bad signature           → 401 {"error":"invalid","error_description":"token provided was malformed"}
 * - any other decode failure → 401 {"error":"unauthorized","error_description":<the failure's message>}
 * RFC 8725 §3.1: the algorithm list is the caller's and never taken from the token (so `alg:none` and
 * RS→HS confusion are refused); §3.10/RFC 9068 §4: an optional `typ` check (`at+jwt`), which
 * jsonwebtoken does not do itself.
 */
export type VerificationKey = KeyObject | string | Buffer;

export interface JwtVerifierOptions {
  /** One key, or a lookup by `kid` in our own key set (RFC 8725 §3.10: never fetch a key the token names). */
  key: VerificationKey | ((kid: string | undefined) => VerificationKey | undefined);
  algorithms: readonly Algorithm[];
  issuer?: string;
  audience?: string;
  /** RFC 9068 §4: e.g. "at+jwt"; "application/at+jwt" is accepted too. */
  requiredTyp?: string;
  clockToleranceSeconds?: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
}

export interface JwtVerifier {
  verify(token: string): Principal;
}

export const EXPIRED = new OAuthError('expired', 'token has expired');
export const BAD_SIGNATURE = new OAuthError('invalid', 'token provided was malformed');

export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  if (options.algorithms.length === 0 || options.algorithms.some((alg) => (alg as string) === 'none')) {
    throw new Error('createJwtVerifier needs an explicit list of signing algorithms, without "none"');
  }
  const now = options.now ?? Date.now;
  return {
    verify(token: string): Principal {
      const key = resolveKey(options.key, token);
      let verified: jwt.Jwt;
      try {
        verified = jwt.verify(token, key, {
          algorithms: [...options.algorithms],
          issuer: options.issuer,
          audience: options.audience,
          clockTolerance: options.clockToleranceSeconds ?? 0,
          clockTimestamp: Math.floor(now() / 1000),
          complete: true,
        });
      } catch (error) {
        throw toOAuthError(error);
      }
      checkTyp(verified.header.typ, options.requiredTyp);
      if (typeof verified.payload === 'string')
        throw new OAuthError('unauthorized', 'jwt payload is not a JSON object');
      return principalFromClaims(verified.payload);
    },
  };
}

function resolveKey(key: JwtVerifierOptions['key'], token: string): VerificationKey {
  if (typeof key !== 'function') return key;
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded) throw new OAuthError('unauthorized', 'jwt malformed');
  const found = key(decoded.header.kid);
  if (found === undefined) throw new OAuthError('unauthorized', 'no verification key for this token');
  return found;
}

function toOAuthError(error: unknown): OAuthError {
  if (error instanceof jwt.TokenExpiredError) return EXPIRED;
  if (error instanceof jwt.JsonWebTokenError && error.message === 'invalid signature') return BAD_SIGNATURE;
  return new OAuthError('unauthorized', error instanceof Error ? error.message : String(error));
}

function checkTyp(typ: string | undefined, required: string | undefined): void {
  if (required === undefined) return;
  const normalised = typ?.toLowerCase().replace(/^application\//, '');
  if (normalised !== required.toLowerCase()) {
    throw new OAuthError('unauthorized', `jwt typ invalid. expected: ${required}`);
  }
}

function principalFromClaims(claims: JwtPayload): Principal {
  const principal: Principal = {
    scopes: parseScope(typeof claims.scope === 'string' ? claims.scope : undefined),
    audience: claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud],
    source: 'jwt',
  };
  if (claims.sub !== undefined) principal.subject = claims.sub;
  if (typeof claims.client_id === 'string') principal.clientId = claims.client_id;
  if (typeof claims.username === 'string') principal.username = claims.username;
  if (claims.exp !== undefined) principal.expiresAt = claims.exp;
  const cnf: unknown = claims.cnf;
  if (typeof cnf === 'object' && cnf !== null && Object.hasOwn(cnf, 'jkt')) {
    const jkt = (cnf as { jkt: unknown }).jkt;
    if (typeof jkt === 'string') principal.dpopJkt = jkt;
  }
  return principal;
}
