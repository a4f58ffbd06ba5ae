import type { Queryable } from './db';
import type {
  DeviceAuthorization,
  DeviceAuthorizationsRepo,
  PendingDeviceAuthorization,
} from '../domain/device/device-authorization';

const toAuthorization = (row: Record<string, unknown>): DeviceAuthorization => ({
  userCodeHash: row.user_code_hash as Buffer,
  deviceCodeHash: row.device_code_hash as Buffer,
  clientId: row.client_id as string,
  scopes: row.scopes as string[],
  resources: row.resources as string[],
  status: row.status as DeviceAuthorization['status'],
  userId: row.user_id as string | null,
  grantId: row.grant_id as string | null,
  authTime: row.auth_time as Date | null,
  intervalSeconds: row.interval_seconds as number,
  lastPolledAt: row.last_polled_at as Date | null,
  expiresAt: row.expires_at as Date,
});

const toPending = (row: Record<string, unknown>): PendingDeviceAuthorization => ({
  userCodeHash: row.user_code_hash as Buffer,
  clientId: row.client_id as string,
  clientName: row.name as string,
  scopes: row.scopes as string[],
  resources: row.resources as string[],
});

/** Every statement names the row by user_code_hash, the table's key (migration 0004). */
export function createDeviceAuthorizationsRepo(db: Queryable): DeviceAuthorizationsRepo {
  return {
    async create(request) {
      const { rowCount } = await db.query(
        `INSERT INTO device_authorizations (user_code_hash, device_code_hash, client_id, scopes, resources,
           interval_seconds, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
         ON CONFLICT (user_code_hash) DO NOTHING`,
        [
          request.userCodeHash,
          request.deviceCodeHash,
          request.clientId,
          request.scopes,
          request.resources,
          request.intervalSeconds,
          request.ttlSeconds,
        ],
      );
      return rowCount === 1;
    },
    async lockForPoll(userCodeHash, deviceCodeHash) {
      const { rows } = await db.query(
        `SELECT d.*, g.revoked_at AS grant_revoked_at, now() AS db_now
           FROM device_authorizations d LEFT JOIN grants g ON g.grant_id = d.grant_id
          WHERE d.user_code_hash = $1 AND d.device_code_hash = $2
          FOR UPDATE OF d`,
        [userCodeHash, deviceCodeHash],
      );
      const row = rows[0];
      return row
        ? {
            ...toAuthorization(row),
            grantRevokedAt: row.grant_revoked_at as Date | null,
            now: row.db_now as Date,
          }
        : undefined;
    },
    async recordPoll(userCodeHash, intervalSeconds) {
      await db.query(
        `UPDATE device_authorizations SET last_polled_at = now(), interval_seconds = $2
          WHERE user_code_hash = $1`,
        [userCodeHash, intervalSeconds],
      );
    },
    async markConsumed(userCodeHash) {
      await db.query(
        `UPDATE device_authorizations SET status = 'consumed', last_polled_at = now() WHERE user_code_hash = $1`,
        [userCodeHash],
      );
    },
    async findPending(userCodeHash, options) {
      const { rows } = await db.query(
        `SELECT d.user_code_hash, d.client_id, c.name, d.scopes, d.resources
           FROM device_authorizations d JOIN clients c ON c.client_id = d.client_id
          WHERE d.user_code_hash = $1 AND d.status = 'pending' AND d.expires_at > now()
            AND c.disabled_at IS NULL
          ${options?.lock ? 'FOR UPDATE OF d' : ''}`,
        [userCodeHash],
      );
      return rows[0] ? toPending(rows[0]) : undefined;
    },
    async approve(userCodeHash, decision) {
      await db.query(
        `UPDATE device_authorizations
            SET status = 'approved', user_id = $2, grant_id = $3, auth_time = $4, decided_at = now()
          WHERE user_code_hash = $1 AND status = 'pending'`,
        [userCodeHash, decision.userId, decision.grantId, decision.authTime],
      );
    },
    async deny(userCodeHash, userId) {
      const { rowCount } = await db.query(
        `UPDATE device_authorizations SET status = 'denied', user_id = $2, decided_at = now()
          WHERE user_code_hash = $1 AND status = 'pending' AND expires_at > now()`,
        [userCodeHash, userId],
      );
      return rowCount === 1;
    },
    async deleteExpired(before) {
      const { rowCount } = await db.query('DELETE FROM device_authorizations WHERE expires_at < $1', [
        before,
      ]);
      return rowCount ?? 0;
    },
  };
}
