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
import type { Redis } from 'ioredis';
import type { AuthConfig } from './config';
import type { AuthorizationFlow } from './domain/authorize/authorization-flow';
import type { GrantRevoker } from './domain/consent/grant-revoker';
import { createPagesRouter } from './http/pages.router';

export interface AuthDeps {
  config: AuthConfig;
  pool: Pool;
  logger: Logger;
  /** Extra readiness checks (Redis, when configured). */
  readiness?: Record<string, ReadinessCheck>;
  /** Shared counters (login throttle) across instances; in-process when absent. */
  redis?: Redis;
  /** The protocol side of /authorize; the login and consent pages drive it. */
  authorizationFlow?: AuthorizationFlow;
  /** Revokes grants with their tokens (account page); plain SQL when absent. */
  grantRevoker?: GrantRevoker;
  /** Injected time for sessions (tests use a fake clock). */
  clock?: () => Date;
  /** Redis key prefix of the login throttle (tests keep apart with a unique one). */
  throttleKeyPrefix?: string;
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
  app.use(createPagesRouter(deps));
  app.use(oauthErrorHandler(deps.logger));
  return app;
}
