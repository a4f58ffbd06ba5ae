import type { Queryable } from './db';
import type { Passkey, PasskeysRepo, PasskeyWithUser } from '../domain/passkeys/passkey';

interface PasskeyRow {
  credential_id: Buffer;
  user_id: string;
  user_handle: Buffer;
  public_key: Buffer;
  sign_count: string;
  transports: string[];
  name: string;
  aaguid: string;
  backup_eligible: boolean;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = `p.credential_id, p.user_id, p.user_handle, p.public_key, p.sign_count, p.transports, p.name,
  p.aaguid, p.backup_eligible, p.backed_up, p.created_at, p.last_used_at`;

function toPasskey(row: PasskeyRow): Passkey {
  return {
    credentialId: row.credential_id,
    userId: row.user_id,
    userHandle: row.user_handle,
    publicKey: row.public_key,
    signCount: Number(row.sign_count),
    transports: row.transports,
    name: row.name,
    aaguid: row.aaguid,
    backupEligible: row.backup_eligible,
    backedUp: row.backed_up,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** Table `passkeys` (migration 0017). */
export function createPasskeysRepo(db: Queryable): PasskeysRepo {
  return {
    async listByUser(userId) {
      const { rows } = await db.query<PasskeyRow>(
        `SELECT ${COLUMNS} FROM passkeys p WHERE p.user_id = $1 ORDER BY p.created_at, p.credential_id`,
        [userId],
      );
      return rows.map(toPasskey);
    },
    async countByUser(userId) {
      const { rows } = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM passkeys WHERE user_id = $1',
        [userId],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async findForSignIn(credentialId): Promise<PasskeyWithUser | undefined> {
      const { rows } = await db.query<PasskeyRow & { username: string }>(
        `SELECT ${COLUMNS}, u.username FROM passkeys p JOIN users u ON u.user_id = p.user_id
          WHERE p.credential_id = $1 AND u.disabled_at IS NULL`,
        [credentialId],
      );
      const row = rows[0];
      return row ? { ...toPasskey(row), username: row.username } : undefined;
    },
    async save(passkey, max) {
      // One statement: the count bound and the insert together; a known credential id inserts nothing.
      const { rows } = await db.query<{ outcome: string }>(
        `WITH mine AS (SELECT count(*) AS n FROM passkeys WHERE user_id = $2),
              known AS (SELECT 1 FROM passkeys WHERE credential_id = $1),
              added AS (
                INSERT INTO passkeys (credential_id, user_id, user_handle, public_key, sign_count, transports,
                                      name, aaguid, backup_eligible, backed_up)
                SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
                 WHERE (SELECT n FROM mine) < $11 AND NOT EXISTS (SELECT 1 FROM known)
                ON CONFLICT (credential_id) DO NOTHING
                RETURNING 1)
         SELECT CASE WHEN EXISTS (SELECT 1 FROM added) THEN 'saved'
                     WHEN EXISTS (SELECT 1 FROM known) THEN 'duplicate'
                     ELSE 'limit' END AS outcome`,
        [
          passkey.credentialId,
          passkey.userId,
          passkey.userHandle,
          passkey.publicKey,
          passkey.signCount,
          passkey.transports,
          passkey.name,
          passkey.aaguid,
          passkey.backupEligible,
          passkey.backedUp,
          max,
        ],
      );
      const outcome = rows[0]?.outcome;
      return outcome === 'saved' || outcome === 'limit' ? outcome : 'duplicate';
    },
    async recordUse(credentialId, checkedCount, newCount, backedUp, at) {
      const { rowCount } = await db.query(
        `UPDATE passkeys SET sign_count = $3, backed_up = $4, last_used_at = $5
          WHERE credential_id = $1 AND sign_count = $2`,
        [credentialId, checkedCount, newCount, backedUp, at],
      );
      return (rowCount ?? 0) > 0;
    },
    async rename(userId, credentialId, name) {
      const { rowCount } = await db.query(
        'UPDATE passkeys SET name = $3 WHERE user_id = $1 AND credential_id = $2',
        [userId, credentialId, name],
      );
      return (rowCount ?? 0) > 0;
    },
    async delete(userId, credentialId) {
      const { rowCount } = await db.query('DELETE FROM passkeys WHERE user_id = $1 AND credential_id = $2', [
        userId,
        credentialId,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async deleteAllOfUser(userId) {
      const { rowCount } = await db.query('DELETE FROM passkeys WHERE user_id = $1', [userId]);
      return rowCount ?? 0;
    },
  };
}
