import { Pool } from 'pg';
import { createTestDatabase } from '@acme/testkit';
import { createConsentsRepo } from '../../src/storage/consents.repo';
import { createSessionsRepo } from '../../src/storage/sessions.repo';
import { createUsersRepo } from '../../src/storage/users.repo';
import { PASSWORD_AUTHENTICATION } from '../../src/domain/sessions/authentication-methods';
import { checkLogin } from '../../src/domain/users/check-login';
import { hashPassword } from '../../src/domain/users/hash-password';
import { AUTH_SCHEMA } from '../support/auth-schema';

describe('sessions, consents and user credentials repos (Postgres)', () => {
  let pool: Pool;
  let userId: string;
  beforeAll(async () => {
    const databaseUrl = await createTestDatabase('webrepo', AUTH_SCHEMA);
    pool = new Pool({ connectionString: databaseUrl, max: 3 });
    const { rows } = await pool.query<{ user_id: string }>(
      "INSERT INTO users (username, password_hash) VALUES ('Judy', $1) RETURNING user_id",
      [await hashPassword('judy secret pass')],
    );
    userId = rows[0]!.user_id;
    await pool.query("INSERT INTO clients (client_id, name, client_type) VALUES ('c1', 'C1', 'public')");
  });
  afterAll(async () => {
    await pool.end();
  });

  it('finds a session only before it expires, and deletes expired ones in batches', async () => {
    const repo = createSessionsRepo(pool);
    const now = new Date('2026-01-01T00:00:00Z');
    const live = Buffer.alloc(32, 1);
    const old = Buffer.alloc(32, 2);
    await repo.saveSession({
      sessionHash: live,
      sid: 'sid-live',
      userId,
      authTime: now,
      expiresAt: new Date(now.getTime() + 60_000),
      authentication: PASSWORD_AUTHENTICATION,
    });
    await repo.saveSession({
      sessionHash: old,
      sid: 'sid-old',
      userId,
      authTime: now,
      expiresAt: new Date(now.getTime() - 1),
      authentication: PASSWORD_AUTHENTICATION,
    });
    expect(await repo.findSession(live, now)).toEqual({
      sid: 'sid-live',
      userId,
      username: 'Judy',
      authTime: now,
      expiresAt: new Date(now.getTime() + 60_000),
      authentication: { amr: ['pwd'], acr: 'urn:acme:acr:1fa' },
    });
    expect(await repo.findSession(old, now)).toBeNull();
    expect(await repo.findSession(live, new Date(now.getTime() + 60_000))).toBeNull();
    expect(await repo.deleteExpiredSessions(now, 10)).toBe(1);
    await repo.deleteSession(live);
    expect(await repo.findSession(live, now)).toBeNull();
  });

  it('merges consented scopes instead of shrinking them, and deletes them', async () => {
    const repo = createConsentsRepo(pool);
    expect(await repo.findConsent(userId, 'c1')).toBeNull();
    await repo.saveConsent(userId, 'c1', ['openid', 'email', 'openid']);
    await repo.saveConsent(userId, 'c1', ['profile']);
    expect(await repo.findConsent(userId, 'c1')).toEqual(['email', 'openid', 'profile']);
    expect(await repo.deleteConsent(userId, 'c1')).toBe(true);
    expect(await repo.deleteConsent(userId, 'c1')).toBe(false);
    expect(await repo.findConsent(userId, 'c1')).toBeNull();
  });

  it('checks a login case-insensitively with argon2id and refuses disabled users', async () => {
    const store = createUsersRepo(pool);
    const { rows } = await pool.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE user_id = $1',
      [userId],
    );
    expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await checkLogin(store, 'judy', 'judy secret pass')).toEqual({ userId, username: 'Judy' });
    expect(await checkLogin(store, 'judy', 'Judy secret pass')).toBeNull();
    expect(await checkLogin(store, 'nobody', 'judy secret pass')).toBeNull();
    expect(await checkLogin(store, 'judy', 'x'.repeat(2000))).toBeNull();
    await pool.query('UPDATE users SET disabled_at = now() WHERE user_id = $1', [userId]);
    expect(await checkLogin(store, 'judy', 'judy secret pass')).toBeNull();
  });
});
