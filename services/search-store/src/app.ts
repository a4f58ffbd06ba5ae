import express, { type Express } from 'express';
import type { Pool } from 'pg';
import { accessLog, createMetrics, esErrorHandler, healthRouter, requestId, type Logger } from '@acme/common';
import { analyzeRouter } from './api/analyze.route';
import { searchRouter } from './api/search.route';
import type { SearchConfig } from './config';
import type { SearchSeams } from './query/search-seams';

export interface SearchDeps {
  config: SearchConfig;
  pool: Pool;
  logger: Logger;
  /** Aggregations and runtime fields (helper script-aggs); absent → such requests answer 400. */
  searchSeams?: SearchSeams;
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
  app.use(searchRouter({ pool: deps.pool, seams: deps.searchSeams }));
  app.use(analyzeRouter({ pool: deps.pool }));
  app.use(esErrorHandler(deps.logger));
  return app;
}
