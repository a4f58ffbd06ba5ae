import express, { type Express } from 'express';
import type Redis from 'ioredis';
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
import type { AuthorizationFlow } from './domain/authorize/authorization-flow';
import type { GrantRevoker } from './domain/consent/grant-revoker';
import { revokeGrants } from './domain/revocation/revoke';
import { createAuthCore, type AuthCore } from './http/auth-core';
import { serveBeforeRouter } from './http/introspection-fast-path';
import { createPagesRouter } from './http/pages.router';

export interface AuthDeps {
  config: AuthConfig;
  pool: Pool;
  logger: Logger;
  /** Shared introspection cache, failure counters; absent: in-process (one instance). */
  redis?: Redis;
  /** A second connection in subscriber mode for revocation broadcasts (pub/sub). */
  redisSubscriber?: Redis;
  /** Extra readiness checks (Redis, when configured). */
  readiness?: Record<string, ReadinessCheck>;
  /** True while the process drains before exit: /ready answers 503 (main.ts, graceful-shutdown). */
  draining?: () => boolean;
  /** Replaces the protocol side of /authorize (tests of the pages use a test double). */
  authorizationFlow?: AuthorizationFlow;
  /** Replaces the grant revoker of the account page; default: the core's (also purges caches). */
  grantRevoker?: GrantRevoker;
  /** Injected time for browser sessions (tests use a fake clock). */
  clock?: () => Date;
  /** Redis key prefix of the failure counters (tests keep apart with a unique one). */
  throttleKeyPrefix?: string;
}

/** Builds the express app without listening: tests start it on port 0 against real databases. */
export function createApp(deps: AuthDeps): Express & { core: AuthCore } {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // token, introspection and admin answers are no-store: hashing them is waste
  app.set('trust proxy', deps.config.TRUST_PROXY);
  const metrics = createMetrics('auth-server');
  metrics.poolGauges(deps.pool);
  const redis = deps.redis;
  const core = createAuthCore({
    ...deps,
    cacheLookups: metrics.counter(
      'introspection_cache_lookups_total',
      'Introspection cache lookups by result (hit or miss)',
      ['result'],
    ),
  });
  // The account page revokes through the core, so the introspection cache is purged on every instance.
  const coreRevoker: GrantRevoker = {
    async revokeUserClient(userId, clientId, reason) {
      const result = await revokeGrants(core.ctx, { user_id: userId, client_id: clientId }, reason);
      return result.grants;
    },
  };
  const requestIds = requestId();
  const accessLines = accessLog(deps.logger);
  const errors = oauthErrorHandler(deps.logger);
  // POST /token_info, the hot path, is answered before express when the request is the usual small
  // form post (introspection-fast-path.ts); anything else reaches the express route.
  serveBeforeRouter(app, {
    handle: core.introspect,
    ready: core.ready,
    logger: deps.logger,
    accessLog: accessLines,
    metrics: metrics.middleware,
    errorHandler: errors,
  });
  app.use(requestIds);
  app.use(accessLines);
  app.use(metrics.middleware);
  app.use(
    healthRouter({
      checks: {
        postgres: async () => void (await deps.pool.query('SELECT 1')),
        ...(redis ? { redis: async () => void (await redis.ping()) } : {}),
        ...(deps.readiness ?? {}),
      },
      optional: ['redis'],
      draining: deps.draining,
    }),
  );
  app.use(metrics.router);
  app.use(core.router);
  app.use(
    createPagesRouter({
      ...deps,
      authorizationFlow: deps.authorizationFlow ?? core.flow,
      grantRevoker: deps.grantRevoker ?? coreRevoker,
    }),
  );
  app.use(errors);
  return Object.assign(app, { core });
}
