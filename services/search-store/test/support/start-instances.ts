import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import { createLogger, createPgPool } from '@acme/common';
import { createTestDatabase } from '@acme/testkit';
import { createApp } from '../../src/app';
import { searchConfigSchema } from '../../src/config';
import { createIndexWriter } from '../../src/index/index-writer';
import { SearchContexts, type SearchContextsOptions } from '../../src/search/contexts/search-contexts';
import type { RequestHandler } from 'express';
import { SEARCH_SCHEMA } from './search-schema';

export interface Instance {
  url: string;
  pool: Pool;
  contexts: SearchContexts;
  /** Stops serving and ends its holders: its contexts are gone, as a node's that stops. */
  stop(): Promise<void>;
}

/**
 * Every scope, as the user the `x-test-user` header names (default `test-suite`): contexts belong to
 * the user that opened them.
 */
const headerPrincipal: RequestHandler = (req, _res, next) => {
  const user = req.headers['x-test-user'];
  const subject = typeof user === 'string' ? user : 'test-suite';
  req.principal = {
    subject,
    clientId: 'test-suite',
    scopes: ['search.read', 'search.write', 'search.admin'],
    audience: ['search-store'],
    source: 'introspection',
  };
  next();
};

/**
 * `count` search-store instances on ONE fresh database, each its own app, pool and contexts, as
 * replicas behind a load balancer: a scroll or PIT opened on one is read on another.
 */
export async function startInstances(
  count: number,
  options: SearchContextsOptions = {},
): Promise<{ databaseUrl: string; instances: Instance[] }> {
  const databaseUrl = await createTestDatabase('search', SEARCH_SCHEMA);
  const config = searchConfigSchema.parse({
    DATABASE_URL: databaseUrl,
    AUTH_SERVER_URL: 'http://127.0.0.1:1',
    INTROSPECTION_CLIENT_ID: 'search-store',
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
    LOG_LEVEL: 'error',
  });
  const instances: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const pool = createPgPool({ connectionString: databaseUrl, statementTimeoutMs: 30_000, max: 6 });
    const contexts = new SearchContexts(pool, options);
    const app = createApp({
      config,
      pool,
      logger: createLogger({ service: 'search-store', silent: true }),
      indexWriter: createIndexWriter({ termCacheBytes: 2 ** 20 }),
      authenticate: headerPrincipal,
      searchContexts: contexts,
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    let stopped = false;
    instances.push({
      url: `http://127.0.0.1:${port}`,
      pool,
      contexts,
      async stop() {
        if (stopped) return;
        stopped = true;
        await contexts.close();
        await new Promise((resolve) => server.close(resolve));
        await pool.end();
      },
    });
  }
  return { databaseUrl, instances };
}
