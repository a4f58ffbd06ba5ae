import { createHmac } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import {
  checkResourceDpop,
  createDpopNonces,
  createIntrospectionClient,
  createLocalDpopReplayCache,
  DpopResourceError,
  type DpopReplayCache,
  introspectionVerifier,
  isIntrospectionError,
  isOAuthError,
  parseAuthorization,
  principalName,
  type IntrospectionClient,
  type IntrospectionError,
  type Logger,
  type Principal,
  type TokenVerifier,
} from '@acme/common';
import type { SearchConfig } from '../config';
import {
  authenticationUnavailable,
  dpopRefused,
  missingCredentials,
  unableToAuthenticate,
  unableToAuthenticateUser,
} from './security-errors';
import { createServiceAccountTokens, ServiceAccountError } from './service-account-tokens';

/**
 * Every search-store request except the probes carries credentials:
 * - `Authorization: Bearer <access token>` → RFC 7662 introspection at auth-server with search-store's own
 *   resource-server credentials (cached in process, never past the token's exp);
 * - `Authorization: Basic user:password` → a service account (an OAuth client on auth-server): its
 *   client_credentials token, cached until shortly before expiry, then introspected like a Bearer token.
 * - `Authorization: DPoP <access token>` with a `DPoP` proof (RFC 9449 §7.1): introspected the same way, then
 *   the proof is checked for this method and URI, `ath` and the token's `cnf.jkt`; a DPoP-bound token sent
 *   as Bearer is refused (§7.2). Both search paths (express and the lean one) run this same handler.
 * The route's scope is checked after routing, by the route itself (route-scope.ts#requireScope), so it is
 * the scope of the handler that will run. Errors are Elasticsearch's security_exception;
 * when auth-server cannot answer the request fails with 503 and never passes.
 */
export interface AuthenticateRequestOptions {
  config: Pick<
    SearchConfig,
    | 'AUTH_SERVER_URL'
    | 'INTROSPECTION_CLIENT_ID'
    | 'INTROSPECTION_CLIENT_SECRET'
    | 'INTROSPECTION_CACHE_MAX_SECONDS'
    | 'AUTH_SERVER_TIMEOUT_MS'
  > &
    Partial<Pick<SearchConfig, 'DPOP_NONCE_SECRET' | 'DPOP_NONCE_WINDOW_SECONDS'>>;
  logger: Logger;
  /** The introspection client to use (main.ts shares it with the revocation subscription); default: a new one. */
  introspection?: IntrospectionClient;
  now?: () => number;
  fetch?: typeof fetch;
  /** Used DPoP proof jtis (RFC 9449 §11.1; dpop-replay.ts: Redis with REDIS_URL); default: this process's. */
  dpopReplay?: DpopReplayCache;
  /** How long after its iat a DPoP proof is accepted (and its jti remembered); default 60 s. */
  dpopProofMaxAgeSeconds?: number;
}

/** Liveness, readiness and metrics stay reachable without credentials (orchestrators and scrapers). */
const OPEN_PATHS = new Set(['/health', '/ready', '/metrics']);

export function authenticateRequest(options: AuthenticateRequestOptions): RequestHandler {
  const { config, logger } = options;
  const introspection =
    options.introspection ??
    createIntrospectionClient({
      authServerUrl: config.AUTH_SERVER_URL,
      clientId: config.INTROSPECTION_CLIENT_ID,
      clientSecret: config.INTROSPECTION_CLIENT_SECRET,
      cacheMaxSeconds: config.INTROSPECTION_CACHE_MAX_SECONDS,
      timeoutMs: config.AUTH_SERVER_TIMEOUT_MS,
      now: options.now,
      fetch: options.fetch,
    });
  const verifyBearer: TokenVerifier = introspectionVerifier(introspection, options.now);
  const serviceAccounts = createServiceAccountTokens({
    authServerUrl: config.AUTH_SERVER_URL,
    relay: { clientId: config.INTROSPECTION_CLIENT_ID, clientSecret: config.INTROSPECTION_CLIENT_SECRET },
    timeoutMs: config.AUTH_SERVER_TIMEOUT_MS,
    now: options.now,
    fetch: options.fetch,
  });

  const dpopReplay = options.dpopReplay ?? createLocalDpopReplayCache();
  const dpopMaxAge = options.dpopProofMaxAgeSeconds ?? 60;
  // RFC 9449 §9: this service's own nonces (independent of auth-server's), stateless so any instance takes them.
  const dpopNonces = config.DPOP_NONCE_SECRET
    ? createDpopNonces({
        secret: createHmac('sha256', config.DPOP_NONCE_SECRET).update('search-store dpop-nonce').digest(),
        windowSeconds: config.DPOP_NONCE_WINDOW_SECONDS ?? 300,
        now: options.now,
      })
    : undefined;

  const unavailable = (error: IntrospectionError | ServiceAccountError) => {
    logger.warn('auth-server unavailable; request refused', { reason: error.message });
    return authenticationUnavailable(describeUnavailable(error));
  };

  async function verify(token: string, bearerFailure: () => Error): Promise<Principal> {
    try {
      return await verifyBearer(token);
    } catch (error) {
      if (isIntrospectionError(error)) throw unavailable(error);
      if (isOAuthError(error) && error.status === 401) throw bearerFailure();
      throw error;
    }
  }

  async function authenticate(req: Request, res: Response): Promise<{ principal: Principal; user: string }> {
    const uri = req.originalUrl;
    const address = req.ip;
    const credentials = parseAuthorization(req.get('authorization'));
    if (credentials === undefined) throw missingCredentials(uri);
    if (credentials.scheme === 'malformed')
      throw unableToAuthenticate(credentials.declared === 'bearer' || credentials.declared === 'dpop');
    if (credentials.scheme === 'bearer' || credentials.scheme === 'dpop') {
      const principal = await verify(credentials.token, () => unableToAuthenticate(true));
      try {
        await checkResourceDpop({
          scheme: credentials.scheme,
          token: credentials.token,
          principal,
          proof: req.headers.dpop,
          method: req.method,
          url: `${req.protocol}://${req.get('host') ?? ''}${req.originalUrl}`,
          replay: dpopReplay,
          maxAgeSeconds: dpopMaxAge,
          ...(dpopNonces ? { nonces: dpopNonces } : {}),
        });
      } catch (error) {
        if (error instanceof DpopResourceError)
          throw dpopRefused(
            error.challenge(),
            error.error === 'use_dpop_nonce' && dpopNonces ? dpopNonces.current() : undefined,
          );
        throw error;
      }
      // §8.2 as §9 allows: every DPoP answer names the current nonce, so a client moves to the next window
      // without first being refused.
      if (dpopNonces && credentials.scheme === 'dpop') res.setHeader('DPoP-Nonce', dpopNonces.current());
      return { principal, user: principalName(principal) };
    }
    const { username, password } = credentials;
    let token: string;
    try {
      token = await serviceAccounts.tokenFor(username, password, address);
    } catch (error) {
      if (error instanceof ServiceAccountError && error.failure === 'rejected') {
        throw unableToAuthenticateUser(username, uri);
      }
      if (error instanceof ServiceAccountError) throw unavailable(error);
      throw error;
    }
    const principal = await verify(token, () => {
      // Revoked since we fetched it: forget it so the next request gets a fresh token.
      serviceAccounts.forget(username, password);
      return unableToAuthenticateUser(username, uri);
    });
    return { principal, user: username };
  }

  return async (req, res, next) => {
    if (OPEN_PATHS.has(req.path)) return next();
    const { principal, user } = await authenticate(req, res);
    req.principal = principal;
    req.authenticatedUser = user;
    next();
  };
}

function describeUnavailable(error: IntrospectionError | ServiceAccountError): string {
  if (error instanceof ServiceAccountError) return `auth-server could not issue a token (${error.message})`;
  switch (error.failure) {
    case 'timeout':
      return 'auth-server did not answer in time';
    case 'unreachable':
      return 'auth-server is unreachable';
    case 'credentials_rejected':
      return "auth-server refused search-store's introspection credentials";
    default:
      return `auth-server could not introspect the token (${error.message})`;
  }
}
