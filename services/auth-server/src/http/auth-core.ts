import express, { type Router } from 'express';
import type Redis from 'ioredis';
import type { AuthContext } from '../domain/auth-context';
import type { AuthorizationFlow } from '../domain/authorize/authorization-flow';
import { createDeviceFlow, type DeviceFlow } from '../domain/device/device-flow';
import { adminRouter } from './admin.route';
import { deviceAuthorizationRouter } from './device-authorization.route';
import { discoveryRouter } from './discovery.route';
import type { ClientAssertionDeps } from '../domain/clients/verify-client-assertion';
import type { LogoutService } from '../domain/logout/logout-service';
import {
  createIntrospectionHandlers,
  introspectionRouter,
  type IntrospectionHandler,
} from './introspection.route';
import { pushedAuthorizationRequestRouter } from './pushed-authorization-request.route';
import { registrationRouter } from './registration.route';
import { REGISTRATION_PATH } from '../domain/clients/dynamic-registration';
import { OAuthError } from '@acme/common';
import { createClientJwksFetcher } from '../domain/clients/client-jwks-fetcher';
import { createAssertionJtiStore } from '../storage/assertion-jti.store';
import { createDpopNonces } from '@acme/common';
import { deriveKey } from '../domain/crypto/secret-hasher';
import type { TokenDpop } from '../domain/dpop/token-dpop';
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
  /** The seam for the /device page (RFC 8628). */
  device: DeviceFlow;
  /** /token, /token_info, /revoke, /userinfo, discovery, /jwks and /admin. */
  router: Router;
  /** POST /token_info after the body is read; shared by the route and the lean path in front of express. */
  introspect: IntrospectionHandler;
  /** Loads (on first start: creates) the signing keys; main.ts awaits it before listening. */
  ready(): Promise<void>;
}

/**
 * The OAuth protocol endpoints over the context app.ts builds. With Redis the failure counters are
 * shared; without, they are per process (one instance).
 */
export function createAuthCore(deps: {
  ctx: AuthContext;
  flow: AuthorizationFlow;
  redis?: Redis;
  /** Redis key prefix of the failure counters (tests keep apart with a unique one). */
  throttleKeyPrefix?: string;
  /** Used assertion and request-object jtis, and the jwks_uri fetcher (shared with the authorization flow). */
  assertions: ClientAssertionDeps;
  /** Back-channel logout of sessions the admin API ends (the account page's service). */
  logout: Pick<LogoutService, 'sessionsEnded'>;
}): AuthCore {
  const { ctx, flow, redis } = deps;
  const { config } = ctx;
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
  const { assertions } = deps;
  const introspection = createIntrospectionHandlers(ctx, introspectionLimiter, rsAuth, assertions);
  const clientAuth = { ctx, limiter: tokenLimiter, relays: rsAuth, assertions };
  // RFC 9449 §11.1 proof jtis, shared by the instances through Redis (as assertion jtis); §8 nonces
  // derived from the signing secret, so every instance accepts every other's.
  const dpop: TokenDpop = {
    // Not under the per-test throttle prefix: keys are (key, jti) hashes, the same for every instance.
    replay: createAssertionJtiStore({ redis, prefix: 'auth:dpop:jti' }),
    ...(config.DPOP_NONCE_REQUIRED
      ? {
          nonces: createDpopNonces({
            secret: deriveKey(config.TOKEN_SIGNING_SECRET, 'dpop-nonce'),
            windowSeconds: config.DPOP_NONCE_WINDOW_SECONDS,
          }),
        }
      : {}),
  };
  // /token_info first: it is the hot path (issue 4).
  router.use(introspectionRouter(introspection));
  router.use(revocationStreamRouter(ctx, introspectionLimiter, rsAuth));
  router.use(discoveryRouter(ctx));
  router.use(tokenRouter(ctx, clientAuth, dpop));
  router.use(deviceAuthorizationRouter(ctx, clientAuth));
  router.use(pushedAuthorizationRequestRouter(ctx, clientAuth, dpop));
  router.use(revokeRouter(ctx, clientAuth));
  router.use(userinfoRouter(ctx, dpop));
  router.use(adminRouter(ctx, deps.logout));
  // RFC 7591: off by default. Off, /register and /register/{id} answer a JSON 404 in the OAuth envelope
  // (RFC 7591 defines no answer for a server without the endpoint; ORY Hydra answers 404 too), and no-store
  // as the endpoint's answers are.
  if (config.DYNAMIC_REGISTRATION_ENABLED) router.use(registrationRouter(ctx));
  else
    router.all([REGISTRATION_PATH, `${REGISTRATION_PATH}/:clientId`], (_req, res) => {
      res.set('Cache-Control', 'no-store');
      throw new OAuthError('not_found', 'dynamic client registration is not enabled');
    });
  return { ctx, flow, device: createDeviceFlow(ctx), router, introspect: introspection.json, ready };
}

/**
 * RFC 7523 §3 item 7 assertion jtis and RFC 9101 request-object jtis (shared by the instances through Redis,
 * in process without it), and the cached jwks_uri fetcher: built once for the token side and the
 * authorization flow. `prefix`: the failure counters' Redis prefix (tests keep apart with a unique one).
 */
export function createClientKeyDeps(
  config: AuthContext['config'],
  logger: AuthContext['logger'],
  redis: Redis | undefined,
  prefix = 'auth:rl',
): ClientAssertionDeps {
  return {
    jtis: createAssertionJtiStore({ redis, prefix: `${prefix}:jti` }),
    remoteJwks: createClientJwksFetcher({
      timeoutMs: config.CLIENT_JWKS_FETCH_TIMEOUT_MS,
      cacheSeconds: config.CLIENT_JWKS_CACHE_SECONDS,
      refetchSeconds: config.CLIENT_JWKS_REFETCH_SECONDS,
      logger,
    }),
  };
}
