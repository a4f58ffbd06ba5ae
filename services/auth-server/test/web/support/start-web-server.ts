import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { createLogger } from '@acme/common';
import { createTestDatabase, testRedisUrl, uniqueId } from '@acme/testkit';
import { createApp, type AuthDeps } from '../../../src/app';
import { authConfigSchema, type AuthConfig } from '../../../src/config';
import { hashPassword } from '../../../src/domain/users/hash-password';
import { FakeAuthorizationFlow, type FakeClient } from '../../support/fake-authorization-flow';
import { AUTH_SCHEMA } from '../../support/auth-schema';

export interface WebServer {
  url: string;
  config: AuthConfig;
  pool: Pool;
  flow: FakeAuthorizationFlow | undefined;
  clients: FakeClient[];
  /** Audit lines logged so far. */
  audit(): Record<string, unknown>[];
  /** Every log line so far, raw (to check that no secret was logged). */
  logText(): string;
  clock: { now: Date; advance(seconds: number): void };
  createUser(username: string, password: string): Promise<string>;
  stop(): Promise<void>;
}

export interface WebServerOptions {
  env?: Partial<Record<string, string>>;
  /** Use the run's Redis for the login throttle (with a unique key prefix). */
  redis?: boolean;
  /** Build the app with this flow instead of the fake (the real one once wired). */
  withoutFakeFlow?: boolean;
  clients?: FakeClient[];
}

/** auth-server on port 0 with the pages, a fake AuthorizationFlow, a log capture and a fake clock. */
export async function startWebServer(options: WebServerOptions = {}): Promise<WebServer> {
  const databaseUrl = await createTestDatabase('web', AUTH_SCHEMA);
  const config = authConfigSchema.parse({
    ISSUER: 'http://127.0.0.1',
    DATABASE_URL: databaseUrl,
    TOKEN_SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123',
    ADMIN_TOKEN: 'test-admin-token-0123456789abcdef01234567',
    LOG_LEVEL: 'info',
    ...options.env,
  });
  const pool = new Pool({ connectionString: databaseUrl, max: 5 });
  const clients = options.clients ?? [
    {
      clientId: uniqueId('app-'),
      name: 'Photo <Book>',
      redirectUris: ['http://127.0.0.1:9/cb'],
      scopes: ['openid', 'profile', 'email', 'offline_access', 'search.read'],
    },
  ];
  for (const client of clients) {
    await pool.query(
      `INSERT INTO clients (client_id, name, client_type, redirect_uris, scopes) VALUES ($1, $2, 'public', $3, $4)`,
      [client.clientId, client.name, client.redirectUris, client.scopes],
    );
  }
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const logger = createLogger({ service: 'auth-server', level: 'info', stream });
  const clock = {
    now: new Date(),
    advance(seconds: number) {
      this.now = new Date(this.now.getTime() + seconds * 1000);
    },
  };
  const redis = options.redis ? new Redis(testRedisUrl()) : undefined;
  const flow = options.withoutFakeFlow ? undefined : new FakeAuthorizationFlow(config.ISSUER, clients);
  const deps: AuthDeps = {
    config,
    pool,
    logger,
    clock: () => clock.now,
    ...(flow ? { authorizationFlow: flow } : {}),
    ...(redis ? { redis, throttleKeyPrefix: uniqueId('test:login-fail:') } : {}),
  };
  const app = createApp(deps);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    pool,
    flow,
    clients,
    audit: () =>
      lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.kind === 'audit'),
    logText: () => lines.join('\n'),
    clock,
    async createUser(username, password) {
      const { rows } = await pool.query<{ user_id: string }>(
        `INSERT INTO users (username, password_hash, claims) VALUES ($1, $2, $3) RETURNING user_id`,
        [username, await hashPassword(password), { name: username }],
      );
      return rows[0]!.user_id;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await pool.end();
      await redis?.quit();
    },
  };
}
