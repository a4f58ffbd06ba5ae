import type { RequestHandler } from 'express';
import {
  createIntrospectionClient,
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
  >;
  logger: Logger;
  /** The introspection client to use (main.ts shares it with the revocation subscription); default: a new one. */
  introspection?: IntrospectionClient;
  now?: () => number;
  fetch?: typeof fetch;
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

  async function authenticate(
    header: string | undefined,
    uri: string,
    address: string | undefined,
  ): Promise<{ principal: Principal; user: string }> {
    const credentials = parseAuthorization(header);
    if (credentials === undefined) throw missingCredentials(uri);
    if (credentials.scheme === 'malformed') throw unableToAuthenticate(credentials.declared === 'bearer');
    if (credentials.scheme === 'bearer') {
      const principal = await verify(credentials.token, () => unableToAuthenticate(true));
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

  return async (req, _res, next) => {
    if (OPEN_PATHS.has(req.path)) return next();
    const { principal, user } = await authenticate(req.get('authorization'), req.originalUrl, req.ip);
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
