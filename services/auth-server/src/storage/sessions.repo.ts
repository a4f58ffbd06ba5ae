import type { Pool } from 'pg';
import type { Authentication } from '../domain/sessions/authentication-methods';
import { LAST_SEEN_RESOLUTION_SECONDS, type SessionsRepo } from '../domain/sessions/session';

interface SessionRow {
  sid: string;
  user_id: string;
  username: string;
  auth_time: Date;
  expires_at: Date;
  amr: Authentication['amr'];
  acr: Authentication['acr'];
}

export function createSessionsRepo(pool: Pool): SessionsRepo {
  return {
    async saveSession({ sessionHash, sid, userId, authTime, expiresAt, authentication, device }) {
      await pool.query(
        `INSERT INTO sessions (session_hash, sid, user_id, auth_time, expires_at, amr, acr, last_seen_at, device)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $4, $8)`,
        [
          sessionHash,
          sid,
          userId,
          authTime,
          expiresAt,
          authentication.amr,
          authentication.acr,
          device ?? null,
        ],
      );
    },
    async touchSession(sessionHash, now) {
      await pool.query(
        `UPDATE sessions SET last_seen_at = $2
          WHERE session_hash = $1 AND (last_seen_at IS NULL OR last_seen_at <= $2::timestamptz - make_interval(secs => $3))`,
        [sessionHash, now, LAST_SEEN_RESOLUTION_SECONDS],
      );
    },
    async listUserSessions(userId, now, limit) {
      const { rows } = await pool.query<{
        sid: string;
        auth_time: Date;
        last_seen_at: Date;
        device: string | null;
      }>(
        `SELECT sid, auth_time, COALESCE(last_seen_at, auth_time) AS last_seen_at, device
           FROM sessions WHERE user_id = $1 AND expires_at > $2
          ORDER BY COALESCE(last_seen_at, auth_time) DESC, sid LIMIT $3`,
        [userId, now, limit],
      );
      return rows.map((row) => ({
        sid: row.sid,
        authTime: row.auth_time,
        lastSeenAt: row.last_seen_at,
        device: row.device,
      }));
    },
    async deleteUserSession(userId, sid) {
      const { rowCount } = await pool.query('DELETE FROM sessions WHERE user_id = $1 AND sid = $2', [
        userId,
        sid,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async deleteOtherUserSessions(userId, keepSid) {
      const { rows } = await pool.query<{ sid: string }>(
        'DELETE FROM sessions WHERE user_id = $1 AND sid <> $2 RETURNING sid',
        [userId, keepSid],
      );
      return rows.map((row) => row.sid);
    },
    async findSession(sessionHash, now) {
      const { rows } = await pool.query<SessionRow>(
        `SELECT s.sid, s.user_id, u.username, s.auth_time, s.expires_at, s.amr, s.acr
           FROM sessions s JOIN users u ON u.user_id = s.user_id
          WHERE s.session_hash = $1 AND s.expires_at > $2 AND u.disabled_at IS NULL`,
        [sessionHash, now],
      );
      const row = rows[0];
      return row
        ? {
            sid: row.sid,
            userId: row.user_id,
            username: row.username,
            authTime: row.auth_time,
            expiresAt: row.expires_at,
            authentication: { amr: row.amr, acr: row.acr },
          }
        : null;
    },
    async raiseSession(sessionHash, newHash, authentication) {
      const { rowCount } = await pool.query(
        'UPDATE sessions SET session_hash = $2, amr = $3, acr = $4 WHERE session_hash = $1',
        [sessionHash, newHash, authentication.amr, authentication.acr],
      );
      return (rowCount ?? 0) > 0;
    },
    async deleteSession(sessionHash) {
      const { rows } = await pool.query<{ user_id: string; sid: string }>(
        'DELETE FROM sessions WHERE session_hash = $1 RETURNING user_id, sid',
        [sessionHash],
      );
      return rows[0] ? { userId: rows[0].user_id, sid: rows[0].sid } : null;
    },
    async deleteUserSessions(userId) {
      const { rows } = await pool.query<{ sid: string }>(
        'DELETE FROM sessions WHERE user_id = $1 RETURNING sid',
        [userId],
      );
      return rows.map((row) => row.sid);
    },
    async deleteExpiredSessions(now, limit) {
      const { rowCount } = await pool.query(
        `DELETE FROM sessions WHERE session_hash IN (
           SELECT session_hash FROM sessions WHERE expires_at <= $1 LIMIT $2)`,
        [now, limit],
      );
      return rowCount ?? 0;
    },
  };
}
