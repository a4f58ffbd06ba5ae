import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import { createLogger, createPgPool, type Logger } from '@acme/common';
import { createTestDatabase, findFreePort, uniqueId } from '@acme/testkit';
import { AUTH_SCHEMA } from './auth-schema';
import type Redis from 'ioredis';
import { createApp } from '../../src/app';
import type { AuthCore } from '../../src/http/auth-core';
import type { LogoutService } from '../../src/domain/logout/logout-service';
import { connectRedis } from '../../src/storage/connect-redis';
import { authConfigSchema, type AuthConfig } from '../../src/config';

export interface RunningAuthServer {
  url: string;
  config: AuthConfig;
  pool: Pool;
  logger: Logger;
  core: AuthCore;
  /** The logout service (back-channel sender): tests call resume() as main.ts does at start. */
  logout: LogoutService;
  redis?: Redis;
  stop(): Promise<void>;
}

export { MIGRATIONS_DIR } from './auth-schema';

/** auth-server on port 0 against a fresh, migrated database on the run's real Postgres. */
export async function startAuthServer(
  overrides: Partial<Record<string, string>> = {},
  options: {
    databaseUrl?: string;
    logger?: Logger;
    issuerIsUrl?: boolean;
    /** The issuer's host (with issuerIsUrl's fixed port): `localhost` for WebAuthn, which refuses IPs. */
    issuerHost?: string;
  } = {},
): Promise<RunningAuthServer> {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase('auth', AUTH_SCHEMA));
  // The issuer must be the real base URL when a relying party follows the metadata (openid-client).
  const fixedPort = options.issuerIsUrl || options.issuerHost ? await findFreePort() : 0;
  const config = authConfigSchema.parse({
    ISSUER: fixedPort ? `http://${options.issuerHost ?? '127.0.0.1'}:${fixedPort}` : 'http://127.0.0.1',
    DATABASE_URL: databaseUrl,
    TOKEN_SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123',
    ADMIN_TOKEN: 'test-admin-token-0123456789abcdef01234567',
    LOG_LEVEL: 'error',
    ...overrides,
  });
  // The pool as main.ts makes it, with the statement timeout of the config.
  const pool = createPgPool({
    connectionString: databaseUrl,
    max: 10,
    statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
  });
  const logger = options.logger ?? createLogger({ service: 'auth-server', silent: true });
  const connections = config.REDIS_URL ? connectRedis(config.REDIS_URL, logger) : undefined;
  const app = createApp({
    config,
    pool,
    logger,
    redis: connections?.redis,
    redisSubscriber: connections?.subscriber,
    // Failure counters of one server are its own, though the run's Redis is shared.
    throttleKeyPrefix: uniqueId('test:rl:'),
  });
  const server = app.listen(fixedPort, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    pool,
    logger,
    core: app.core,
    logout: app.logout,
    redis: connections?.redis,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      connections?.redis.disconnect();
      connections?.subscriber.disconnect();
      await pool.end();
    },
  };
}
