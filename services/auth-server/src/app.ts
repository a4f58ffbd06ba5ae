import express from 'express';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import {
  accessLine,
  createMetrics,
  frontHandler,
  healthRouter,
  OAuthError,
  oauthErrorHandler,
  requestPrelude,
  type FrontHandler,
  type Logger,
  type Metrics,
  type ReadinessCheck,
} from '@acme/common';
import { buildAuthContext } from './build-auth-context';
import type { AuthConfig } from './config';
import type { AuthorizationFlow } from './domain/authorize/authorization-flow';
import { createAuthorizationFlow } from './domain/authorize/create-authorization-flow';
import type { GrantRevoker } from './domain/consent/grant-revoker';
import type { IntrospectionCache } from './domain/introspection/introspection-cache';
import { createLogoutService, type LogoutService } from './domain/logout/logout-service';
import { revokeGrants } from './domain/revocation/revoke';
import { createAuthCore, createClientKeyDeps, type AuthCore } from './http/auth-core';
import { introspectionFrontRoute } from './http/introspection-fast-path';
import { createPagesRouter } from './http/pages.router';
import { createAccountGrantsRepo } from './storage/account-grants.repo';
import { createBackchannelLogoutRepo } from './storage/backchannel-logout.repo';
import { createConsentsRepo } from './storage/consents.repo';
import { createConsoleSessionsRepo } from './storage/console-sessions.repo';
import { createPasskeyChallengesRepo } from './storage/passkey-challenges.repo';
import { createPasskeysRepo } from './storage/passkeys.repo';
import { createIntrospectionCache } from './storage/introspection-cache.store';
import { createRevocationBus } from './storage/revocation-bus.store';
import { createSessionsRepo } from './storage/sessions.repo';
import { createMfaChallengesRepo } from './storage/mfa-challenges.repo';

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

/**
 * Builds the app without listening: tests start it on port 0 against real databases. The one
 * composition root: repositories, stores and domain services are built here and passed to the routers.
 * The result is node's request listener (frontHandler, @acme/common): POST /token_info's usual form
 * post in front of express, everything else through express.
 */
export function createApp(
  deps: AuthDeps,
): FrontHandler & { core: AuthCore; logout: LogoutService; close(): Promise<void> } {
  const { config, pool, logger, redis } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // token, introspection and admin answers are no-store: hashing them is waste
  app.set('trust proxy', config.TRUST_PROXY);
  const metrics = createMetrics('auth-server');
  metrics.poolGauges(pool);

  // With Redis: a shared introspection cache with pub/sub invalidation, and revocation events fanned
  // out to every instance; without: all in process (one instance).
  const cache = countLookups(
    createIntrospectionCache({
      redis,
      subscriber: deps.redisSubscriber,
      logger,
      localMs: config.INTROSPECTION_LOCAL_CACHE_MS,
      tombstoneSeconds: config.INTROSPECTION_CACHE_MAX_SECONDS + 60,
    }),
    metrics.counter(
      'introspection_cache_lookups_total',
      'Introspection cache lookups by result (hit or miss)',
      ['result'],
    ),
  );
  const revocations = createRevocationBus({ redis, subscriber: deps.redisSubscriber, logger });
  const ctx = buildAuthContext({ config, pool, logger, cache, revocations });
  const assertions = createClientKeyDeps(config, logger, redis, deps.throttleKeyPrefix);
  const flow = createAuthorizationFlow(ctx, assertions);
  const logout = createLogoutService(ctx, createBackchannelLogoutRepo(pool));
  const core = createAuthCore({
    ctx,
    flow,
    redis,
    throttleKeyPrefix: deps.throttleKeyPrefix,
    assertions,
    logout,
  });
  // The account page revokes through the core, so the introspection cache is purged on every instance.
  const coreRevoker: GrantRevoker = {
    async revokeUserClient(userId, clientId, reason) {
      const result = await revokeGrants(ctx, { user_id: userId, client_id: clientId }, reason);
      return result.grants;
    },
  };
  const consents = createConsentsRepo(pool);
  const pages = createPagesRouter({
    config,
    logger,
    redis,
    users: ctx.repos.users,
    consents,
    accountGrants: createAccountGrantsRepo(pool, consents),
    sessions: createSessionsRepo(pool),
    authorizationFlow: deps.authorizationFlow ?? flow,
    deviceFlow: core.device,
    grantRevoker: deps.grantRevoker ?? coreRevoker,
    logout,
    mfa: {
      totp: ctx.repos.totp,
      recoveryCodes: ctx.repos.recoveryCodes,
      challenges: createMfaChallengesRepo(pool),
    },
    clientLogos: ctx.repos.clientLogos,
    passkeys: { passkeys: createPasskeysRepo(pool), challenges: createPasskeyChallengesRepo(pool) },
    clock: deps.clock,
    throttleKeyPrefix: deps.throttleKeyPrefix,
    console: {
      auth: ctx,
      sessions: createConsoleSessionsRepo(pool),
      mfaChallenges: createMfaChallengesRepo(pool),
      ready: core.ready,
    },
  });

  // Request id, access line and metrics: the same steps on both paths (front routes and express).
  const prelude = requestPrelude({ observers: [accessLine(logger), metrics.observe] });
  const errors = oauthErrorHandler(logger);
  app.use(prelude.middleware);
  app.use(
    healthRouter({
      checks: {
        postgres: async () => void (await pool.query('SELECT 1')),
        ...(redis ? { redis: async () => void (await redis.ping()) } : {}),
        ...(deps.readiness ?? {}),
      },
      optional: ['redis'],
      draining: deps.draining,
    }),
  );
  app.use(metrics.router);
  app.use(core.router);
  app.use(pages);
  // Past every route: the OAuth envelope, not express's HTML "Cannot GET" page (clients parse JSON here).
  app.use((req) => {
    throw new OAuthError('not_found', `no endpoint for ${req.method} ${req.path}`);
  });
  app.use(errors);
  // POST /token_info, the hot path, is answered before express when the request is the usual small
  // form post (introspection-fast-path.ts); anything else reaches the express route.
  const front = frontHandler(app, {
    prelude,
    routes: [introspectionFrontRoute(app, { handle: core.introspect, ready: core.ready })],
    errorHandler: errors,
  });
  // close(): stops the back-channel logout sender's timer before the pool ends (main.ts, tests).
  return Object.assign(front, { core, logout, close: () => logout.close() });
}

/** Counts cache lookups by result for /metrics, around any cache. */
function countLookups(
  cache: IntrospectionCache,
  lookups: ReturnType<Metrics['counter']>,
): IntrospectionCache {
  return {
    get: async (hash, rsId) => {
      const found = await cache.get(hash, rsId);
      lookups.inc({ result: found ? 'hit' : 'miss' });
      return found;
    },
    set: (hash, rsId, value, ttlSeconds) => cache.set(hash, rsId, value, ttlSeconds),
    invalidate: (hashes) => cache.invalidate(hashes),
  };
}
