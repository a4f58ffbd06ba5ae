import express, { type Router } from 'express';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import type { Logger, Metrics } from '@acme/common';
import type { AuthConfig } from '../config';
import type { AuthContext } from '../domain/auth-context';
import type { AuthorizationFlow } from '../domain/authorize/authorization-flow';
import { createAuthorizationFlow } from '../domain/authorize/create-authorization-flow';
import { buildAuthContext } from '../build-auth-context';
import { createIntrospectionCache } from '../storage/introspection-cache.store';
import { createRevocationBus } from '../storage/revocation-bus.store';
import { adminRouter } from './admin.route';
import { discoveryRouter } from './discovery.route';
import {
  createIntrospectionHandler,
  introspectionRouter,
  type IntrospectionHandler,
} from './introspection.route';
import { createFailureLimiter } from './rate-limit';
import { createResourceServerAuth } from './resource-server-auth';
import { revocationStreamRouter } from './revocation-stream.route';
import { revokeRouter } from './revoke.route';
import { tokenRouter } from './token.route';
import { userinfoRouter } from './userinfo.route';

export interface AuthCore {
  ctx: AuthContext;
  /** The seam for the /authorize pages. */
  flow: AuthorizationFlow;
  /** /token, /token_info, /revoke, /userinfo, discovery, /jwks and /admin. */
  router: Router;
  /** POST /token_info after the body is read; shared by the route and the lean path in front of express. */
  introspect: IntrospectionHandler;
  /** Loads (on first start: creates) the signing keys; main.ts awaits it before listening. */
  ready(): Promise<void>;
}

/**
 * The OAuth protocol core. With Redis: a shared introspection cache, pub/sub invalidation and shared
 * failure counters; without: all in process (one instance).
 */
export function createAuthCore(deps: {
  config: AuthConfig;
  pool: Pool;
  logger: Logger;
  redis?: Redis;
  redisSubscriber?: Redis;
  /** Counts introspection cache lookups by result, for /metrics. */
  cacheLookups?: ReturnType<Metrics['counter']>;
  /** Redis key prefix of the failure counters (tests keep apart with a unique one). */
  throttleKeyPrefix?: string;
}): AuthCore {
  const { config, redis } = deps;
  const cache = createIntrospectionCache({
    redis,
    subscriber: deps.redisSubscriber,
    logger: deps.logger,
    localMs: config.INTROSPECTION_LOCAL_CACHE_MS,
    tombstoneSeconds: config.INTROSPECTION_CACHE_MAX_SECONDS + 60,
  });
  const lookups = deps.cacheLookups;
  if (lookups) {
    const get = cache.get.bind(cache);
    cache.get = async (hash, rsId) => {
      const found = await get(hash, rsId);
      lookups.inc({ result: found ? 'hit' : 'miss' });
      return found;
    };
  }
  const revocations = createRevocationBus({ redis, subscriber: deps.redisSubscriber, logger: deps.logger });
  const ctx = buildAuthContext({ config, pool: deps.pool, logger: deps.logger, cache, revocations });
  const points = config.AUTH_FAILURES_PER_MINUTE;
  const prefix = deps.throttleKeyPrefix ?? 'auth:rl';
  const tokenLimiter = createFailureLimiter({ redis, points, prefix: `${prefix}:client` });
  const introspectionLimiter = createFailureLimiter({ redis, points, prefix: `${prefix}:rs` });

  // Signing keys are created on first start; requests wait for that once, and retry if it failed.
  let keysReady: Promise<void> | undefined;
  let keysLoaded = false;
  const ready = () =>
    (keysReady ??= ctx.keys.ensure().then(
      () => void (keysLoaded = true),
      (error: unknown) => {
        keysReady = undefined;
        throw error;
      },
    ));
  const router = express.Router();
  router.use((_req, _res, next) => {
    if (keysLoaded) return next(); // the hot path pays no promise once the keys are loaded
    ready().then(() => next(), next);
  });
  const rsAuth = createResourceServerAuth(ctx);
  const introspect = createIntrospectionHandler(ctx, introspectionLimiter, rsAuth);
  const clientAuth = { ctx, limiter: tokenLimiter, relays: rsAuth };
  // /token_info first: it is the hot path (issue 4).
  router.use(introspectionRouter(introspect));
  router.use(revocationStreamRouter(ctx, introspectionLimiter, rsAuth));
  router.use(discoveryRouter(ctx));
  router.use(tokenRouter(ctx, clientAuth));
  router.use(revokeRouter(ctx, clientAuth));
  router.use(userinfoRouter(ctx));
  router.use(adminRouter(ctx));
  return { ctx, flow: createAuthorizationFlow(ctx), router, introspect, ready };
}
