import type { Queryable } from './db';
import type { Grant, GrantClaims, GrantFilter, GrantsRepo } from '../domain/grants/grant';
import type { Authentication } from '../domain/sessions/authentication-methods';
import type { RevokedToken } from '../domain/tokens/token-record';

const toGrant = (row: Record<string, unknown>): Grant => ({
  grantId: row.grant_id as string,
  clientId: row.client_id as string,
  userId: row.user_id as string | null,
  scopes: row.scopes as string[],
  resources: row.resources as string[],
  authTime: row.auth_time as Date | null,
  sid: (row.sid as string | null) ?? null,
  authentication: row.amr
    ? { amr: row.amr as Authentication['amr'], acr: row.acr as Authentication['acr'] }
    : null,
  claims: row.claims ? fromClaimsColumn(row.claims as ClaimsColumn) : null,
  revokedAt: row.revoked_at as Date | null,
});

/** grants.claims (migration 0022) as stored: the wire's member names. */
interface ClaimsColumn {
  id_token: string[];
  userinfo: string[];
  acr?: string;
}

const fromClaimsColumn = (column: ClaimsColumn): GrantClaims => ({
  idToken: column.id_token,
  userinfo: column.userinfo,
  ...(column.acr ? { acr: column.acr as GrantClaims['acr'] } : {}),
});

const toClaimsColumn = (claims: GrantClaims | null | undefined): string | null =>
  claims
    ? JSON.stringify({
        id_token: claims.idToken,
        userinfo: claims.userinfo,
        ...(claims.acr ? { acr: claims.acr } : {}),
      } satisfies ClaimsColumn)
    : null;

/**
 * Grants and their revocation. Revoking returns the token hashes it touched so the introspection cache
 * can drop exactly those entries (RFC 7009 §2.1: revocation takes effect at once).
 */
export function createGrantsRepo(db: Queryable): GrantsRepo {
  return {
    async save(grant) {
      const { rows } = await db.query(
        `INSERT INTO grants (client_id, user_id, scopes, resources, auth_time, sid, amr, acr, claims)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9::jsonb)
         RETURNING grant_id, client_id, user_id, scopes, resources, auth_time, sid, amr, acr, claims,
                   revoked_at`,
        [
          grant.clientId,
          grant.userId,
          grant.scopes,
          grant.resources,
          grant.authTime,
          grant.sid ?? null,
          grant.authentication?.amr ?? null,
          grant.authentication?.acr ?? null,
          toClaimsColumn(grant.claims),
        ],
      );
      return toGrant(rows[0]);
    },
    async findById(grantId: string): Promise<Grant | undefined> {
      const { rows } = await db.query(
        `SELECT grant_id, client_id, user_id, scopes, resources, auth_time, sid, amr, acr, claims, revoked_at
           FROM grants WHERE grant_id = $1::uuid`,
        [grantId],
      );
      return rows[0] ? toGrant(rows[0]) : undefined;
    },
    async listByUser(userId: string): Promise<Grant[]> {
      const { rows } = await db.query(
        `SELECT grant_id, client_id, user_id, scopes, resources, auth_time, revoked_at FROM grants
         WHERE user_id = $1::uuid AND revoked_at IS NULL ORDER BY created_at`,
        [userId],
      );
      return rows.map(toGrant);
    },
    /** Grants with no code or token left (all expired and purged): nothing can use them any more. */
    async deleteOrphans(before: Date, limit = 10_000): Promise<number> {
      const { rowCount } = await db.query(
        `DELETE FROM grants WHERE grant_id IN (
           SELECT g.grant_id FROM grants g
           WHERE g.created_at < $1
             AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = g.grant_id)
             AND NOT EXISTS (SELECT 1 FROM authorization_codes c WHERE c.grant_id = g.grant_id)
           LIMIT $2)`,
        [before, limit],
      );
      return rowCount ?? 0;
    },
    /**
     * Revokes the grants matching every given column (one, or user and client together) and every token
     * under them, in one statement.
     */
    async revokeWhere(
      filter: GrantFilter,
      reason: string,
    ): Promise<{ grantIds: string[]; tokenHashes: Buffer[]; tokens: RevokedToken[] }> {
      const columns = (['grant_id', 'user_id', 'client_id'] as const).filter((c) => filter[c] !== undefined);
      if (columns.length === 0) throw new Error('revokeWhere needs at least one column');
      const where = columns
        .map((c, i) => `${c} = $${i + 2}::${c === 'client_id' ? 'text' : 'uuid'}`)
        .join(' AND ');
      const { rows } = await db.query(
        `WITH g AS (
           UPDATE grants SET revoked_at = now(), revoked_reason = $1
           WHERE ${where} AND revoked_at IS NULL RETURNING grant_id
         ), t AS (
           UPDATE tokens SET revoked_at = now()
           WHERE grant_id IN (SELECT grant_id FROM g) AND revoked_at IS NULL RETURNING token_hash, kind, jti
         )
         SELECT (SELECT array_agg(grant_id::text) FROM g) AS grant_ids,
                (SELECT array_agg(token_hash ORDER BY token_hash) FROM t) AS token_hashes,
                (SELECT array_agg(kind ORDER BY token_hash) FROM t) AS kinds,
                (SELECT array_agg(jti ORDER BY token_hash) FROM t) AS jtis`,
        [reason, ...columns.map((c) => filter[c])],
      );
      const tokenHashes: Buffer[] = rows[0].token_hashes ?? [];
      const kinds: RevokedToken['kind'][] = rows[0].kinds ?? [];
      const jtis: (string | null)[] = rows[0].jtis ?? [];
      return {
        grantIds: rows[0].grant_ids ?? [],
        tokenHashes,
        tokens: tokenHashes.map((tokenHash, i) => ({ tokenHash, kind: kinds[i]!, jti: jtis[i] ?? null })),
      };
    },
  };
}
