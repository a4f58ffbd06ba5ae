import type { Queryable } from './db';
import type {
  AuthorizationCode,
  AuthorizationCodesRepo,
  RedeemedCode,
} from '../domain/grants/authorization-code';

const toCode = (row: Record<string, unknown>): AuthorizationCode => ({
  codeHash: row.code_hash as Buffer,
  grantId: row.grant_id as string,
  clientId: row.client_id as string,
  userId: row.user_id as string,
  redirectUri: row.redirect_uri as string,
  scopes: row.scopes as string[],
  resources: row.resources as string[],
  codeChallenge: row.code_challenge as string | null,
  nonce: row.nonce as string | null,
  dpopJkt: row.dpop_jkt as string | null,
  authTime: row.auth_time as Date,
  expiresAt: row.expires_at as Date,
});

const COLUMNS = `c.code_hash, c.grant_id, c.client_id, c.user_id, c.redirect_uri, c.scopes, c.resources,
  c.code_challenge, c.nonce, c.dpop_jkt, c.auth_time, c.expires_at, g.revoked_at AS grant_revoked_at`;

const toRedeemed = (row: Record<string, unknown>): RedeemedCode => ({
  ...toCode(row),
  grantRevokedAt: row.grant_revoked_at as Date | null,
});

export function createAuthorizationCodesRepo(db: Queryable): AuthorizationCodesRepo {
  return {
    async save(code: AuthorizationCode): Promise<void> {
      await db.query(
        `INSERT INTO authorization_codes (code_hash, grant_id, client_id, user_id, redirect_uri, scopes, resources,
           code_challenge, code_challenge_method, nonce, auth_time, expires_at, dpop_jkt)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
        [
          code.codeHash,
          code.grantId,
          code.clientId,
          code.userId,
          code.redirectUri,
          code.scopes,
          code.resources,
          code.codeChallenge,
          code.codeChallenge ? 'S256' : null,
          code.nonce,
          code.authTime,
          code.expiresAt,
          code.dpopJkt,
        ],
      );
    },
    /** Removes codes past their expiry; a replay of one is then simply an unknown code. */
    async deleteExpired(before: Date): Promise<number> {
      const { rowCount } = await db.query('DELETE FROM authorization_codes WHERE expires_at < $1', [before]);
      return rowCount ?? 0;
    },
    /**
     * Marks the code used by `clientId` and returns it (RFC 6749 §4.1.2: single use). The UPDATE is the
     * lock, so two concurrent redemptions cannot both win. A code of another client is left untouched
     * (a thief cannot burn it); a used one comes back `replayed`. The grant's revocation state comes
     * with it, so the caller can refuse a code whose grant was revoked by any path.
     */
    async consume(
      codeHash: Buffer,
      clientId: string,
    ): Promise<{ code: RedeemedCode; replayed: boolean } | undefined> {
      const { rows } = await db.query(
        `UPDATE authorization_codes c SET consumed_at = now() FROM grants g
         WHERE g.grant_id = c.grant_id AND c.code_hash = $1 AND c.client_id = $2 AND c.consumed_at IS NULL
         RETURNING ${COLUMNS}`,
        [codeHash, clientId],
      );
      if (rows[0]) return { code: toRedeemed(rows[0]), replayed: false };
      const used = await db.query(
        `SELECT ${COLUMNS}, c.consumed_at FROM authorization_codes c JOIN grants g ON g.grant_id = c.grant_id
         WHERE c.code_hash = $1`,
        [codeHash],
      );
      const row = used.rows[0];
      return row
        ? { code: toRedeemed(row), replayed: row.consumed_at !== null && row.client_id === clientId }
        : undefined;
    },
  };
}
