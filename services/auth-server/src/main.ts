import { join } from 'node:path';
import {
  answerMalformedHttp,
  createGracefulShutdown,
  createLogger,
  createPgPool,
  drainOnSignals,
  loadConfigOrExit,
  runMigrations,
} from '@acme/common';
import { createApp } from './app';
import { authConfigSchema } from './config';
import { connectRedis } from './storage/connect-redis';
import { purgeExpired } from './domain/tokens/purge-expired';
import { bootstrapSearchStore } from './domain/admin/bootstrap-search-store';

/** The only reader of process.env. */
async function main(): Promise<void> {
  const config = loadConfigOrExit(authConfigSchema, process.env, 'auth-server');
  const logger = createLogger({ service: 'auth-server', level: config.LOG_LEVEL });
  await runMigrations({
    databaseUrl: config.DATABASE_URL,
    dir: join(__dirname, '..', 'src', 'storage', 'migrations'),
    table: 'auth_migrations',
    logger,
  });
  const pool = createPgPool({
    connectionString: config.DATABASE_URL,
    max: 20,
    statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
  });
  // An idle connection dropped by Postgres (restart, failover) emits 'error' on the pool; without a
  // listener that would crash the process. The pool opens a new connection on the next query.
  pool.on('error', (error) => logger.warn('idle Postgres connection lost', { error: error.message }));
  // A checked-out client whose connection drops between two queries (inside a transaction) emits 'error'
  // on itself, where the pool has no listener: without this the process crashes. Its next query rejects.
  pool.on('connect', (client) => {
    client.on('error', (error) => logger.warn('Postgres connection lost', { error: error.message }));
  });
  const connections = config.REDIS_URL ? connectRedis(config.REDIS_URL, logger) : undefined;
  const shutdown = createGracefulShutdown({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS, logger });
  const app = createApp({
    config,
    pool,
    logger,
    redis: connections?.redis,
    redisSubscriber: connections?.subscriber,
    draining: () => shutdown.draining,
  });
  await app.core.ready(); // signing keys exist before the first request
  app.logout.resume(); // back-channel logouts a previous process left pending
  if (config.BOOTSTRAP_SEARCH_STORE_SECRET)
    await bootstrapSearchStore(app.core.ctx, config.BOOTSTRAP_SEARCH_STORE_SECRET);
  // Expired tokens and codes: hourly, in batches (every instance may run it; deletes are idempotent).
  const janitor = setInterval(() => {
    purgeExpired(app.core.ctx).then(
      (purged) => logger.info('purged expired tokens and codes', purged),
      (error: unknown) => logger.warn('purge failed', { error: String(error) }),
    );
  }, 3_600_000);
  janitor.unref();
  const server = app.listen(config.PORT, config.HOST, () => {
    logger.info('auth-server listening', { port: config.PORT, issuer: config.ISSUER });
  });
  answerMalformedHttp(server, 'oauth');
  shutdown.attach(server, {
    beforeDrain: () => app.core.ctx.revocations.close(), // open streams would hold the drain to its timeout
    // Redis and Postgres only after the drain: the requests still in flight use them.
    release: async () => {
      await app.close();
      connections?.redis.disconnect();
      connections?.subscriber.disconnect();
      await pool.end();
    },
  });
  drainOnSignals(shutdown);
}

void main().catch((error: unknown) => {
  process.stderr.write(
    `auth-server failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
