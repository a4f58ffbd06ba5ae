import type { Queryable } from './db';
import type {
  ActClaim,
  RevokedToken,
  StoredToken,
  TokenRecord,
  TokensRepo,
} from '../domain/tokens/token-record';

const toRevoked = (row: { token_hash: Buffer; kind: StoredToken['kind']; jti: string | null }) => ({
  tokenHash: row.token_hash,
  kind: row.kind,
  jti: row.jti,
});

const toRecord = (row: Record<string, unknown>): TokenRecord => ({
  tokenHash: row.token_hash as Buffer,
  kind: row.kind as StoredToken['kind'],
  format: row.format as StoredToken['format'],
  jti: row.jti as string | null,
  grantId: row.grant_id as string,
  clientId: row.client_id as string,
  userId: row.user_id as string | null,
  scopes: row.scopes as string[],
  audience: row.audience as string[],
  familyId: row.family_id as string | null,
  codeHash: row.code_hash as Buffer | null,
  issuedAt: row.issued_at as Date,
  expiresAt: row.expires_at as Date | null,
  act: row.act as ActClaim | null,
  dpopJkt: row.dpop_jkt as string | null,
  revokedAt: row.revoked_at as Date | null,
  rotatedAt: row.rotated_at as Date | null,
  lastUsedAt: row.last_used_at as Date | null,
  grantRevokedAt: row.grant_revoked_at as Date | null,
  grantAuthTime: row.grant_auth_time as Date | null,
  username: row.username as string | null,
});

export function createTokensRepo(db: Queryable): TokensRepo {
  return {
    /** Saves the tokens of one issuance in one round trip (unnest). */
    async saveAll(tokens: StoredToken[]): Promise<void> {
      const col = <K extends keyof StoredToken>(key: K) => tokens.map((t) => t[key]);
      await db.query(
        `INSERT INTO tokens (token_hash, kind, format, jti, grant_id, client_id, user_id, scopes, audience,
           family_id, code_hash, issued_at, expires_at, act, dpop_jkt)
         SELECT t.token_hash, t.kind, t.format, t.jti, t.grant_id, t.client_id, t.user_id,
                string_to_array(t.scopes, ' '), string_to_array(t.audience, ' '), t.family_id, t.code_hash,
                t.issued_at, t.expires_at, t.act, t.dpop_jkt
         FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::uuid[],
                     $8::text[], $9::text[], $10::uuid[], $11::bytea[], $12::timestamptz[], $13::timestamptz[],
                     $14::jsonb[], $15::text[])
           AS t(token_hash, kind, format, jti, grant_id, client_id, user_id, scopes, audience, family_id,
                code_hash, issued_at, expires_at, act, dpop_jkt)`,
        [
          col('tokenHash'),
          col('kind'),
          col('format'),
          col('jti'),
          col('grantId'),
          col('clientId'),
          col('userId'),
          tokens.map((t) => t.scopes.join(' ')),
          tokens.map((t) => t.audience.join(' ')),
          col('familyId'),
          col('codeHash'),
          col('issuedAt'),
          col('expiresAt'),
          tokens.map((t) => (t.act ? JSON.stringify(t.act) : null)),
          tokens.map((t) => t.dpopJkt ?? null),
        ],
      );
    },
    /** One indexed lookup joining the grant (a revoked or deleted grant makes every token inactive). */
    async findByHash(tokenHash: Buffer): Promise<TokenRecord | undefined> {
      // Named: prepared once per connection, so Postgres does not parse and plan this join on every
      // introspection that misses the cache (issue 4). Columns listed, not t.*: a column added by a
      // later migration must not change the result type of statements running instances prepared.
      const { rows } = await db.query({
        name: 'tokens-find-by-hash',
        text: `SELECT t.token_hash, t.kind, t.format, t.jti, t.grant_id, t.client_id, t.user_id, t.scopes,
           t.audience, t.family_id, t.code_hash, t.issued_at, t.expires_at, t.revoked_at, t.rotated_at,
           t.last_used_at, t.act, t.dpop_jkt, g.revoked_at AS grant_revoked_at, g.auth_time AS grant_auth_time, u.username
         FROM tokens t JOIN grants g ON g.grant_id = t.grant_id LEFT JOIN users u ON u.user_id = t.user_id
         WHERE t.token_hash = $1`,
        values: [tokenHash],
      });
      return rows[0] ? toRecord(rows[0]) : undefined;
    },
    /**
     * Rotation (RFC 9700 §4.14.2): true only for the first caller. Inside a transaction the row stays
     * locked until commit, so a concurrent caller waits here and then finds it rotated (or revoked).
     */
    async markRotated(tokenHash: Buffer): Promise<boolean> {
      const { rowCount } = await db.query(
        `UPDATE tokens SET rotated_at = now(), last_used_at = now()
         WHERE token_hash = $1 AND rotated_at IS NULL AND revoked_at IS NULL`,
        [tokenHash],
      );
      return (rowCount ?? 0) > 0;
    },
    async revokeByHash(tokenHash: Buffer): Promise<RevokedToken[]> {
      const { rows } = await db.query(
        `UPDATE tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL
         RETURNING token_hash, kind, jti`,
        [tokenHash],
      );
      return rows.map(toRevoked);
    },
    /** Every token of a refresh family: the refresh tokens and the access tokens issued with them. */
    async revokeFamily(familyId: string): Promise<RevokedToken[]> {
      const { rows } = await db.query(
        `UPDATE tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL
         RETURNING token_hash, kind, jti`,
        [familyId],
      );
      return rows.map(toRevoked);
    },
    /** Removes tokens past their expiry (B3 #1: tables must not grow without bound). */
    async deleteExpired(before: Date, limit = 10_000): Promise<number> {
      const { rowCount } = await db.query(
        `DELETE FROM tokens WHERE token_hash IN (
           SELECT token_hash FROM tokens WHERE expires_at < $1 LIMIT $2)`,
        [before, limit],
      );
      return rowCount ?? 0;
    },
  };
}
