import type { Queryable } from './db';
import type { User, UsersRepo } from '../domain/users/user';

const toUser = (row: Record<string, unknown>): User => ({
  userId: row.user_id as string,
  username: row.username as string,
  passwordHash: row.password_hash as string,
  claims: row.claims as Record<string, unknown>,
});

export function createUsersRepo(db: Queryable): UsersRepo {
  return {
    async create(user: Omit<User, 'userId'>): Promise<User> {
      const { rows } = await db.query(
        `INSERT INTO users (username, password_hash, claims) VALUES ($1,$2,$3)
         RETURNING user_id, username, password_hash, claims`,
        [user.username, user.passwordHash, JSON.stringify(user.claims)],
      );
      return toUser(rows[0]);
    },
    async findById(userId: string): Promise<User | undefined> {
      const { rows } = await db.query(
        `SELECT user_id, username, password_hash, claims FROM users
         WHERE user_id = $1::uuid AND disabled_at IS NULL`,
        [userId],
      );
      return rows[0] ? toUser(rows[0]) : undefined;
    },
    async findByUsername(username: string): Promise<User | undefined> {
      const { rows } = await db.query(
        `SELECT user_id, username, password_hash, claims FROM users
         WHERE lower(username) = lower($1) AND disabled_at IS NULL`,
        [username],
      );
      return rows[0] ? toUser(rows[0]) : undefined;
    },
    async updatePasswordHash(userId: string, passwordHash: string): Promise<boolean> {
      const { rowCount } = await db.query(
        'UPDATE users SET password_hash = $2 WHERE user_id = $1::uuid AND disabled_at IS NULL',
        [userId, passwordHash],
      );
      return (rowCount ?? 0) > 0;
    },
  };
}
