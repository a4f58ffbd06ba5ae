import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import type { StoredToken } from './token-record';
import { generateSecret } from '../crypto/secret-hasher';
import type { IssueRequest, TokenBase } from './issue-request';

/** The access token's lifetime: the client's, capped by the request's maximum; null: non-expiring. */
export function accessTokenTtl(client: Client, req: Pick<IssueRequest, 'maxLifetimeSeconds'>): number | null {
  const ttl = client.accessTokenTtlSeconds;
  if (req.maxLifetimeSeconds === undefined) return ttl;
  return ttl === null ? req.maxLifetimeSeconds : Math.min(ttl, req.maxLifetimeSeconds);
}

/**
 * One access token in the client's format. Opaque: 256 random bits, stored as their keyed hash, may be
 * non-expiring. JWT (RFC 9068): the product's claims (sub, iss, cid, iat, exp, scope) plus client_id,
 * aud and jti; stored by the hash of its jti so revocation reaches it.
 */
export function mintAccessToken(
  ctx: AuthContext,
  client: Client,
  req: IssueRequest,
  base: TokenBase,
  now: Date,
): { accessToken: string; stored: StoredToken } {
  const ttl = accessTokenTtl(client, req);
  if (client.tokenFormat === 'jwt' && ttl !== null) {
    const iat = Math.floor(now.getTime() / 1000);
    const jti = randomUUID();
    const accessToken = ctx.jwt.signAccessToken(
      {
        ...(req.userId ? { sub: req.userId } : {}),
        iss: ctx.config.ISSUER,
        cid: client.clientId,
        client_id: client.clientId,
        aud: req.audience,
        jti,
        iat,
        exp: iat + ttl,
        scope: req.scopes.join(' '),
        ...(req.act ? { act: req.act } : {}),
        // RFC 9449 §6.1: the confirmation of the DPoP key.
        ...(req.dpop ? { cnf: { jkt: req.dpop.jkt } } : {}),
      },
      client.jwtAlg,
    );
    const expiresAt = new Date((iat + ttl) * 1000);
    return {
      accessToken,
      stored: {
        ...base,
        tokenHash: ctx.hasher.hash(`jti:${jti}`),
        kind: 'access_token',
        format: 'jwt',
        jti,
        expiresAt,
        dpopJkt: req.dpop?.jkt ?? null,
      },
    };
  }
  const accessToken = generateSecret();
  const expiresAt = ttl === null ? null : new Date(now.getTime() + ttl * 1000);
  return {
    accessToken,
    stored: {
      ...base,
      tokenHash: ctx.hasher.hash(accessToken),
      kind: 'access_token',
      format: 'opaque',
      jti: null,
      expiresAt,
      dpopJkt: req.dpop?.jkt ?? null,
    },
  };
}
