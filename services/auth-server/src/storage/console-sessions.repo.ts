import type { Queryable } from './db';
import type { ConsoleSessionsRepo } from '../domain/admin/console-session';
import type { AuthenticationMethod } from '../domain/sessions/authentication-methods';

export function createConsoleSessionsRepo(db: Queryable): ConsoleSessionsRepo {
  return {
    async save({ sessionHash, userId, amr, now, expiresAt }) {
      await db.query(
        `INSERT INTO admin_console_sessions (session_hash, user_id, amr, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $4, $5)`,
        [sessionHash, userId, amr, now, expiresAt],
      );
    },
    async find(sessionHash, now, idleSeconds, role) {
      const { rows } = await db.query<{
        user_id: string;
        username: string;
        amr: AuthenticationMethod[];
        created_at: Date;
        last_seen_at: Date;
        expires_at: Date;
      }>(
        `SELECT s.user_id, u.username, s.amr, s.created_at, s.last_seen_at, s.expires_at
           FROM admin_console_sessions s JOIN users u ON u.user_id = s.user_id
          WHERE s.session_hash = $1 AND s.expires_at > $2
            AND s.last_seen_at > $2 - make_interval(secs => $3)
            AND u.disabled_at IS NULL AND $4 = ANY (u.roles)`,
        [sessionHash, now, idleSeconds, role],
      );
      const row = rows[0];
      return row
        ? {
            userId: row.user_id,
            username: row.username,
            amr: row.amr,
            createdAt: row.created_at,
            lastSeenAt: row.last_seen_at,
            expiresAt: row.expires_at,
          }
        : null;
    },
    async touch(sessionHash, now) {
      await db.query('UPDATE admin_console_sessions SET last_seen_at = $2 WHERE session_hash = $1', [
        sessionHash,
        now,
      ]);
    },
    async delete(sessionHash) {
      await db.query('DELETE FROM admin_console_sessions WHERE session_hash = $1', [sessionHash]);
    },
    async deleteExpired(now, idleSeconds, limit) {
      const { rowCount } = await db.query(
        `DELETE FROM admin_console_sessions WHERE session_hash IN (
           SELECT session_hash FROM admin_console_sessions
            WHERE expires_at <= $1 OR last_seen_at <= $1 - make_interval(secs => $2) LIMIT $3)`,
        [now, idleSeconds, limit],
      );
      return rowCount ?? 0;
    },
  };
}
