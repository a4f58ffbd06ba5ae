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
import { authenticateRequest } from './auth/authenticate-request';
import { createDpopReplay } from './auth/dpop-replay';
import { createIntrospectionWithPush } from './auth/revocation-push';
import { createScriptRunner } from './script/script-runner';
import { searchConfigSchema } from './config';
import { createIndexWriter } from './index/index-writer';
import { createFastSearchPool } from './storage/fast-search-pool';
import { ReplicaSet } from './storage/replica-set';
import { SearchContexts } from './search/contexts/search-contexts';

/** The only reader of process.env. */
async function main(): Promise<void> {
  const config = loadConfigOrExit(searchConfigSchema, process.env, 'search-store');
  const logger = createLogger({ service: 'search-store', level: config.LOG_LEVEL });
  await runMigrations({
    databaseUrl: config.DATABASE_URL,
    dir: join(__dirname, '..', 'src', 'storage', 'migrations'),
    table: 'search_migrations',
    logger,
  });
  const database = {
    connectionString: config.DATABASE_URL,
    statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
  };
  const pool = createPgPool({ ...database, max: 20 });
  const fastPool = createFastSearchPool({ ...database, max: 10 });
  const replicas = new ReplicaSet({
    primary: pool,
    replicas: config.DATABASE_REPLICA_URLS.map((url, i) => {
      const replica = { connectionString: url, statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS };
      return {
        name: `replica_${i + 1}`,
        pool: createPgPool({ ...replica, max: 20 }),
        fastPool: createFastSearchPool({ ...replica, max: 10 }),
        probe: createPgPool({ connectionString: url, statementTimeoutMs: 1000, max: 1 }),
      };
    }),
    maxLagMs: config.REPLICA_MAX_LAG_MS,
    heartbeatMs: config.REPLICA_HEARTBEAT_MS,
    logger,
  });
  const replicaPools = replicas.pools();
  for (const each of [pool, fastPool, ...replicaPools]) {
    // An idle connection dropped by Postgres (restart, failover) emits 'error' on the pool; without a
    // listener that would crash the process. The pool opens a new connection on the next query.
    each.on('error', (error) => logger.warn('idle Postgres connection lost', { error: error.message }));
    // A checked-out client whose connection drops between two queries (inside a transaction) emits
    // 'error' on itself, where the pool has no listener: without this the process crashes. Its next
    // query rejects.
    each.on('connect', (client) => {
      client.on('error', (error) => logger.warn('Postgres connection lost', { error: error.message }));
    });
  }
  const { introspection, revocations } = createIntrospectionWithPush(config, logger);
  const dpop = createDpopReplay(config, logger);
  const shutdown = createGracefulShutdown({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS, logger });
  const searchContexts = new SearchContexts(pool, { maxHolders: config.SEARCH_CONTEXT_HOLDERS });
  const app = createApp({
    config,
    pool,
    fastPool,
    logger,
    indexWriter: createIndexWriter({ termCacheBytes: config.SEARCH_TERM_CACHE_MB * 2 ** 20 }),
    scriptRunner: createScriptRunner(),
    authenticate: authenticateRequest({ config, logger, introspection, dpopReplay: dpop.replay }),
    revocationStream: revocations,
    draining: () => shutdown.draining,
    searchContexts,
    replicas: replicas.start(),
  });
  const server = app.listen(config.PORT, config.HOST, () => {
    logger.info('search-store listening', { port: config.PORT });
  });
  answerMalformedHttp(server, 'es');
  shutdown.attach(server, {
    // After the drain: requests still in flight read Postgres, and a revocation pushed meanwhile still counts.
    release: async () => {
      revocations?.close();
      // This instance's scroll and PIT contexts end with it, as a node's do in ES.
      await searchContexts.close();
      await replicas.close();
      await Promise.all([pool.end(), fastPool.end(), dpop.close()]);
    },
  });
  drainOnSignals(shutdown);
}

void main().catch((error: unknown) => {
  process.stderr.write(
    `search-store failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
