import type { Queryable } from './db';
import type { AdminRepo, AdminUser } from '../domain/admin/admin-repo';
import type { Client } from '../domain/clients/client';
import { createClientsRepo } from './clients.repo';

const USER_COLUMNS = 'user_id, username, claims, roles, disabled_at, created_at';

const toUser = (row: Record<string, unknown>): AdminUser => ({
  userId: row.user_id as string,
  username: row.username as string,
  claims: row.claims as Record<string, unknown>,
  roles: row.roles as string[],
  disabled: row.disabled_at !== null,
  createdAt: row.created_at as Date,
});

/** LIKE's own characters in a user's search text are literal (ESCAPE '\'). */
const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createAdminRepo(db: Queryable): AdminRepo {
  return {
    async listUsers({ search, limit, offset }) {
      const { rows } = await db.query(
        `SELECT ${USER_COLUMNS} FROM users
          WHERE $1::text IS NULL OR lower(username) LIKE $1 ESCAPE '\\'
          ORDER BY lower(username) LIMIT $2 OFFSET $3`,
        [search === undefined ? null : likePrefix(search), limit, offset],
      );
      return rows.map(toUser);
    },
    async findUser(userId) {
      const { rows } = await db.query(`SELECT ${USER_COLUMNS} FROM users WHERE user_id = $1::uuid`, [userId]);
      return rows[0] ? toUser(rows[0]) : undefined;
    },
    async setUserDisabled(userId, disabled) {
      const { rowCount } = await db.query(
        `UPDATE users SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) END WHERE user_id = $1::uuid`,
        [userId, disabled],
      );
      return (rowCount ?? 0) > 0;
    },
    async setUserRole(userId, role, granted) {
      const { rowCount } = await db.query(
        `UPDATE users SET roles = CASE WHEN $3 THEN array_append(array_remove(roles, $2), $2)
                                       ELSE array_remove(roles, $2) END
          WHERE user_id = $1::uuid`,
        [userId, role, granted],
      );
      return (rowCount ?? 0) > 0;
    },
    async findLoginWithRole(username, role) {
      const { rows } = await db.query<{ user_id: string; username: string; password_hash: string }>(
        `SELECT user_id, username, password_hash FROM users
          WHERE lower(username) = lower($1) AND disabled_at IS NULL AND $2 = ANY (roles)`,
        [username, role],
      );
      const row = rows[0];
      return row
        ? { userId: row.user_id, username: row.username, passwordHash: row.password_hash }
        : undefined;
    },
    async updateClient(client: Omit<Client, 'createdAt'>) {
      await db.query(
        `UPDATE clients SET name = $2, redirect_uris = $3, post_logout_redirect_uris = $4, grant_types = $5,
           response_types = $6, scopes = $7, token_format = $8, jwt_alg = $9, access_token_ttl_seconds = $10,
           refresh_token_ttl_seconds = $11, refresh_idle_ttl_seconds = $12, secret_hash = $13,
           secret_ciphertext = $14, updated_at = now()
         WHERE client_id = $1`,
        [
          client.clientId,
          client.name,
          client.redirectUris,
          client.postLogoutRedirectUris,
          client.grantTypes,
          client.responseTypes,
          client.scopes,
          client.tokenFormat,
          client.jwtAlg,
          client.accessTokenTtlSeconds,
          client.refreshTokenTtlSeconds,
          client.refreshIdleTtlSeconds,
          client.secretHash,
          client.secretCiphertext,
        ],
      );
      const updated = await createClientsRepo(db).findById(client.clientId);
      if (!updated) throw new Error(`client ${client.clientId} vanished during its update`);
      return updated;
    },
    async listGrants({ userId, clientId, limit }) {
      const { rows } = await db.query(
        `SELECT g.grant_id, g.client_id, g.user_id, u.username, g.scopes, g.sid, g.created_at
           FROM grants g LEFT JOIN users u ON u.user_id = g.user_id
          WHERE g.revoked_at IS NULL AND ($1::uuid IS NULL OR g.user_id = $1) AND ($2::text IS NULL OR g.client_id = $2)
          ORDER BY g.created_at DESC LIMIT $3`,
        [userId ?? null, clientId ?? null, limit],
      );
      return rows.map((row: Record<string, unknown>) => ({
        grantId: row.grant_id as string,
        clientId: row.client_id as string,
        userId: row.user_id as string | null,
        username: row.username as string | null,
        scopes: row.scopes as string[],
        sid: row.sid as string | null,
        createdAt: row.created_at as Date,
      }));
    },
    async listSessions({ userId, limit }) {
      const { rows } = await db.query(
        `SELECT s.sid, s.user_id, u.username, s.auth_time, s.expires_at
           FROM sessions s JOIN users u ON u.user_id = s.user_id
          WHERE s.expires_at > now() AND ($1::uuid IS NULL OR s.user_id = $1)
          ORDER BY s.auth_time DESC LIMIT $2`,
        [userId ?? null, limit],
      );
      return rows.map((row: Record<string, unknown>) => ({
        sid: row.sid as string,
        userId: row.user_id as string,
        username: row.username as string,
        authTime: row.auth_time as Date,
        expiresAt: row.expires_at as Date,
      }));
    },
    async deleteSession(userId, sid) {
      // By user first (index sessions_user), then sid among that user's few rows.
      const { rowCount } = await db.query('DELETE FROM sessions WHERE user_id = $1::uuid AND sid = $2', [
        userId,
        sid,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async deleteUserSessions(userId) {
      await db.query('DELETE FROM admin_console_sessions WHERE user_id = $1::uuid', [userId]);
      const { rows } = await db.query<{ sid: string }>(
        'DELETE FROM sessions WHERE user_id = $1::uuid RETURNING sid',
        [userId],
      );
      return rows.map((row) => row.sid);
    },
    async listSigningKeys(limit) {
      const { rows } = await db.query(
        `SELECT kid, alg, created_at, retired_at, expires_at FROM signing_keys ORDER BY created_at DESC LIMIT $1`,
        [limit],
      );
      return rows.map((row: Record<string, unknown>) => ({
        kid: row.kid as string,
        alg: row.alg as string,
        createdAt: row.created_at as Date,
        retiredAt: row.retired_at as Date | null,
        expiresAt: row.expires_at as Date | null,
      }));
    },
  };
}
