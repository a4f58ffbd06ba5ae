import type { IntrospectionResponse } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { ResourceServer } from '../clients/resource-server';
import type { TokenRecord } from '../tokens/token-record';
import { findTokenHash, isTokenActive } from '../tokens/find-token';
import { publicTokenId } from '../tokens/public-token-id';

const INACTIVE: IntrospectionResponse = Object.freeze({ active: false });
/** Inactive results never turn active (a revoked or unknown token stays so): cache them briefly. */
const INACTIVE_TTL_SECONDS = 30;

/**
 * RFC 7662 §2.2 for one resource server. active:true only when the token was issued here, is not revoked
 * in any way, has not expired and its audience includes the caller (RFC 9700 §2.3, RFC 8707); the view
 * carries only the scopes that resource server serves. Everything else is exactly {active:false}.
 */
export async function introspectToken(
  ctx: AuthContext,
  token: string,
  rs: ResourceServer,
): Promise<IntrospectionResponse> {
  const hash = await findTokenHash(ctx, token);
  if (!hash) return INACTIVE;
  const maxTtl = ctx.config.INTROSPECTION_CACHE_MAX_SECONDS;
  // 0 turns the cache off: Postgres answers every call, and entries another instance (or an earlier
  // configuration) left in Redis are not read either.
  const cached = maxTtl > 0 ? await ctx.cache.get(hash, rs.id) : undefined;
  if (cached) return cached;
  const record = await ctx.repos.tokens.findByHash(hash);
  const now = Date.now();
  const view = record && isTokenActive(record, new Date(now)) ? viewFor(ctx, record, rs) : INACTIVE;
  const ttl = view.active
    ? Math.min(maxTtl, record?.expiresAt ? Math.floor((record.expiresAt.getTime() - now) / 1000) : maxTtl)
    : Math.min(maxTtl, INACTIVE_TTL_SECONDS);
  await ctx.cache.set(hash, rs.id, view, ttl);
  return view;
}

function viewFor(ctx: AuthContext, record: TokenRecord, rs: ResourceServer): IntrospectionResponse {
  // A refresh token is for the authorization server only (RFC 6749 §1.5): a resource server that
  // receives one as a bearer token must not be told it is usable.
  if (record.kind !== 'access_token' || !record.audience.includes(rs.audience)) return INACTIVE;
  const scope = record.scopes.filter((s) => rs.scopes.includes(s)).join(' ');
  return {
    active: true,
    scope,
    client_id: record.clientId,
    ...(record.username ? { username: record.username } : {}),
    // RFC 9449 §6.2: a bound token says so, with the key's thumbprint, so the resource server checks
    // the proof against it (and refuses the token as Bearer, §7.2).
    token_type: record.dpopJkt ? 'DPoP' : 'Bearer',
    ...(record.dpopJkt ? { cnf: { jkt: record.dpopJkt } } : {}),
    ...(record.expiresAt ? { exp: Math.floor(record.expiresAt.getTime() / 1000) } : {}),
    iat: Math.floor(record.issuedAt.getTime() / 1000),
    ...(record.userId ? { sub: record.userId } : {}),
    aud: record.audience,
    iss: ctx.config.ISSUER,
    // RFC 7662 §2.2: the id revocation events name (public-token-id.ts), never the token or its hash.
    jti: publicTokenId(ctx.hasher, record),
    // RFC 8693 §4.1 and §2.2.1's note on introspection: the delegation chain of an exchanged token.
    ...(record.act ? { act: record.act } : {}),
  };
}
