import express, { type Express } from 'express';
import type { Pool } from 'pg';
import { accessLog, createMetrics, esErrorHandler, healthRouter, requestId, type Logger } from '@acme/common';
import { authenticateRequest } from './auth/authenticate-request';
import type { SearchConfig } from './config';

export interface SearchDeps {
  config: SearchConfig;
  pool: Pool;
  logger: Logger;
}

/** Builds the express app without listening: tests start it on port 0 against a real Postgres. */
export function createApp(deps: SearchDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  const metrics = createMetrics('search-store');
  // Elasticsearch clients refuse any response without this header (ProductNotSupportedError).
  app.use((_req, res, next) => {
    res.setHeader('X-Elastic-Product', 'Elasticsearch');
    next();
  });
  app.use(requestId());
  app.use(accessLog(deps.logger));
  app.use(metrics.middleware);
  app.use(healthRouter({ checks: { postgres: async () => void (await deps.pool.query('SELECT 1')) } }));
  app.use(metrics.router);
  app.use(authenticateRequest({ config: deps.config, logger: deps.logger }));
  app.use(esErrorHandler(deps.logger));
  return app;
}
