import express, { type Express } from 'express';
import type { Pool } from 'pg';
import {
  accessLog,
  createMetrics,
  healthRouter,
  oauthErrorHandler,
  requestId,
  type Logger,
  type ReadinessCheck,
} from '@acme/common';
import type { AuthConfig } from './config';

export interface AuthDeps {
  config: AuthConfig;
  pool: Pool;
  logger: Logger;
  /** Extra readiness checks (Redis, when configured). */
  readiness?: Record<string, ReadinessCheck>;
}

/** Builds the express app without listening: tests start it on port 0 against real databases. */
export function createApp(deps: AuthDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  const metrics = createMetrics('auth-server');
  app.use(requestId());
  app.use(accessLog(deps.logger));
  app.use(metrics.middleware);
  app.use(
    healthRouter({
      checks: { postgres: async () => void (await deps.pool.query('SELECT 1')), ...(deps.readiness ?? {}) },
      optional: ['redis'],
    }),
  );
  app.use(metrics.router);
  app.use(oauthErrorHandler(deps.logger));
  return app;
}
