import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import { createLogger, createPgPool, type Logger } from '@acme/common';
import { createTestDatabase } from '@acme/testkit';
import { SEARCH_SCHEMA } from './search-schema';
import { createApp } from '../../src/app';
import { authenticateRequest } from '../../src/auth/authenticate-request';
import { createDpopReplay } from '../../src/auth/dpop-replay';
import { createIntrospectionWithPush } from '../../src/auth/revocation-push';
import { createScriptRunner } from '../../src/script/script-runner';
import { fullAccessPrincipal } from './full-access-principal';
import { searchConfigSchema, type SearchConfig } from '../../src/config';
import { createRecordingIndexWriter, type IndexWriterCall } from './recording-index-writer';
import { createIndexWriter } from '../../src/index/index-writer';
import { createFastSearchPool } from '../../src/storage/fast-search-pool';
import { ReplicaSet } from '../../src/storage/replica-set';

export interface RunningSearchStore {
  url: string;
  config: SearchConfig;
  pool: Pool;
  logger: Logger;
  /** Calls the document store made to the IndexWriter seam. */
  indexWriterCalls: IndexWriterCall[];
  stop(): Promise<void>;
}

export { MIGRATIONS_DIR } from './search-schema';

/** search-store on port 0 against a fresh, migrated database on the run's real Postgres. */
export async function startSearchStore(
  overrides: Partial<Record<string, string>> = {},
  options: {
    /**
     * 'real': the production middleware (auth suites); 'real-with-push': that plus the revocation stream
     * as main.ts wires it (REVOCATION_STREAM decides); default: a fixed principal with every scope.
     */
    auth?: 'real' | 'real-with-push' | 'full-access';
    /** Most documents a runtime field is evaluated over per index (default: the production default). */
    maxRuntimeDocs?: number;
    /** The app's logger (default: silent). */
    logger?: Logger;
    /** An existing, migrated database (default: a fresh one on the run's Postgres). */
    databaseUrl?: string;
    /** Read replicas of that database, as main.ts wires DATABASE_REPLICA_URLS (started, stopped with the app). */
    replicaUrls?: string[];
    /** Documents per part of a bulk batch (index-writer.ts PART_DOCS): small, to get several parts. */
    partDocs?: number;
  } = {},
): Promise<RunningSearchStore> {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase('search', SEARCH_SCHEMA));
  const config = searchConfigSchema.parse({
    DATABASE_URL: databaseUrl,
    AUTH_SERVER_URL: 'http://127.0.0.1:1',
    INTROSPECTION_CLIENT_ID: 'search-store',
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
    LOG_LEVEL: 'error',
    ...overrides,
  });
  // The pools as main.ts makes them, with the statement timeout of the config.
  const database = { connectionString: databaseUrl, statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS };
  const pool = createPgPool({ ...database, max: 10 });
  const fastPool = createFastSearchPool({ ...database, max: 4 });
  const logger = options.logger ?? createLogger({ service: 'search-store', silent: true });
  const replicas = new ReplicaSet({
    primary: pool,
    replicas: (options.replicaUrls ?? []).map((url, i) => ({
      name: `replica_${i + 1}`,
      pool: createPgPool({
        connectionString: url,
        statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
        max: 4,
      }),
      fastPool: createFastSearchPool({
        connectionString: url,
        statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
        max: 2,
      }),
      probe: createPgPool({ connectionString: url, statementTimeoutMs: 1000, max: 1 }),
    })),
    maxLagMs: config.REPLICA_MAX_LAG_MS,
    heartbeatMs: config.REPLICA_HEARTBEAT_MS,
    logger,
  }).start();
  // As main.ts: a server stopped under a test (a replica; a primary right after pool.end(), which
  // resolves before its connections close) drops connections, an 'error' that must not crash the run.
  for (const each of [pool, fastPool, ...replicas.pools()]) {
    each.on('error', () => undefined);
    each.on('connect', (client) => client.on('error', () => undefined));
  }
  const indexWriter = createRecordingIndexWriter(createIndexWriter({ partDocs: options.partDocs }));
  const push = options.auth === 'real-with-push' ? createIntrospectionWithPush(config, logger) : undefined;
  const dpop = createDpopReplay(config, logger);
  const authenticate =
    options.auth === 'real' || push
      ? authenticateRequest({ config, logger, introspection: push?.introspection, dpopReplay: dpop.replay })
      : fullAccessPrincipal;
  const app = createApp({
    config,
    pool,
    fastPool,
    logger,
    indexWriter,
    scriptRunner: createScriptRunner(),
    searchOptions: { maxRuntimeDocs: options.maxRuntimeDocs },
    authenticate,
    revocationStream: push?.revocations,
    replicas,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    pool,
    logger,
    indexWriterCalls: indexWriter.calls,
    async stop() {
      push?.revocations?.close();
      await new Promise((resolve) => server.close(resolve));
      await replicas.close();
      await Promise.all([pool.end(), fastPool.end(), dpop.close()]);
    },
  };
}
