import type { AuthContext } from '../auth-context';
import type { TokenRecord } from './token-record';

/** True when a JWS compact serialization: three base64url parts. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
}

/**
 * The storage key of a presented token: the keyed hash of an opaque token, or of a verified JWT's jti
 * (RFC 8725 §3.1: signature checked against the allowlist first). undefined: not one of ours.
 */
export async function findTokenHash(ctx: AuthContext, token: string): Promise<Buffer | undefined> {
  if (token.length > 4096) return undefined;
  if (!looksLikeJwt(token)) return ctx.hasher.hash(token);
  const claims = await ctx.jwt.verifyAccessToken(token);
  return claims ? ctx.hasher.hash(`jti:${claims.jti}`) : undefined;
}

/** Active: stored, not revoked (token or grant), not rotated away, not expired. */
export function isTokenActive(record: TokenRecord, now = new Date()): boolean {
  if (record.revokedAt || record.grantRevokedAt || record.rotatedAt) return false;
  return record.expiresAt === null || record.expiresAt > now;
}

/** The active token behind a presented string, or undefined. */
export async function findActiveToken(ctx: AuthContext, token: string): Promise<TokenRecord | undefined> {
  const hash = await findTokenHash(ctx, token);
  if (!hash) return undefined;
  const record = await ctx.repos.tokens.findByHash(hash);
  return record && isTokenActive(record) ? record : undefined;
}
