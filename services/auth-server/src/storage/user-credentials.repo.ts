import type { Pool } from 'pg';
import type { LoginUser, LoginUserStore } from '../domain/users/check-login';

/** The login page's only read of users: the password hash of an enabled user (index users_username). */
export function createUserCredentialsRepo(pool: Pool): LoginUserStore {
  return {
    async findLoginUser(username: string): Promise<LoginUser | null> {
      const { rows } = await pool.query<{ user_id: string; username: string; password_hash: string }>(
        `SELECT user_id, username, password_hash FROM users
          WHERE lower(username) = lower($1) AND disabled_at IS NULL`,
        [username],
      );
      const row = rows[0];
      return row ? { userId: row.user_id, username: row.username, passwordHash: row.password_hash } : null;
    },
  };
}
