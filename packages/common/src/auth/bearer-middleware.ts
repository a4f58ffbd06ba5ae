import type { RequestHandler } from 'express';
import { OAuthError, isOAuthError } from '../errors/oauth-error';
import { parseAuthorization } from './authorization-header';
import type { IntrospectionClient } from './introspection-client';
import { isIntrospectionError } from './introspection-error';
import { hasScope, principalFromIntrospection, type Principal } from './principal';
import { checkResourceDpop, DpopResourceError } from './dpop-resource-check';
import type { DpopReplayCache } from './dpop-replay-cache';

/**
 * Express middleware for a resource server (RFC 6750):
 * - §2.1: the token comes from `Authorization: Bearer …` only (scheme case-insensitive); never the query.
 * - §3.1: no credentials → 401 with `WWW-Authenticate: Bearer realm="…"` and no error code; a token that
 *   fails verification → 401 `error="invalid_token"`; a missing scope → 403 `error="insufficient_scope"`
 *   with the `scope` the route needs.
 * - RFC 9449 §7: with `dpop`, `Authorization: DPoP` and its proof are taken too; a DPoP-bound token sent
 *   as Bearer is refused always (§7.2), with a `DPoP` challenge listing `algs`.
 * - Fail closed: when the authorization server cannot answer, 503 and never a pass.
 * Errors are OAuthError values passed to next(); the service's error handler renders them.
 */
export type TokenVerifier = (token: string) => Promise<Principal> | Principal;

export interface BearerAuthOptions {
  realm: string;
  verify: TokenVerifier;
  /** Accept DPoP (RFC 9449 §7.1): the proofs' jti cache, their acceptable age, the request's public URI. */
  dpop?: {
    replay: DpopReplayCache;
    maxAgeSeconds: number;
    /** Default: `protocol://host` + originalUrl, as express sees them (trust proxy included). */
    url?: (req: Parameters<RequestHandler>[0]) => string;
  };
}

export function bearerAuth(options: BearerAuthOptions): RequestHandler {
  const realm = quote(options.realm);
  return async (req, _res, next) => {
    const credentials = parseAuthorization(req.get('authorization'));
    const dpop = options.dpop;
    const accepted = (scheme: string) => scheme === 'bearer' || (dpop !== undefined && scheme === 'dpop');
    const declared =
      credentials !== undefined &&
      (accepted(credentials.scheme) ||
        (credentials.scheme === 'malformed' && accepted(credentials.declared)));
    if (credentials === undefined || !declared) {
      throw new OAuthError('unauthorized', 'bearer token required', {
        'WWW-Authenticate': `Bearer realm=${realm}`,
      });
    }
    if (credentials.scheme !== 'bearer' && credentials.scheme !== 'dpop')
      throw invalidToken(realm, 'token is malformed');
    try {
      const principal = await options.verify(credentials.token);
      await checkResourceDpop({
        scheme: credentials.scheme,
        token: credentials.token,
        principal,
        proof: req.headers.dpop,
        method: req.method,
        url: dpop?.url?.(req) ?? `${req.protocol}://${req.get('host') ?? ''}${req.originalUrl}`,
        replay: dpop?.replay ?? { claim: () => Promise.resolve(false) },
        maxAgeSeconds: dpop?.maxAgeSeconds ?? 0,
      });
      req.principal = principal;
    } catch (error) {
      if (error instanceof DpopResourceError) {
        throw new OAuthError(
          error.error,
          error.description,
          {
            'WWW-Authenticate': error.challenge(options.realm),
          },
          401,
        );
      }
      if (isIntrospectionError(error)) {
        throw new OAuthError('temporarily_unavailable', `cannot verify the token: ${error.message}`);
      }
      if (isOAuthError(error) && error.status === 401) {
        // The body keeps the verifier's code (the product spec's expired/invalid/unauthorized).
        throw error.with({
          headers: { 'WWW-Authenticate': challenge(realm, 'invalid_token', error.description) },
        });
      }
      throw error;
    }
    next();
  };
}

/** Must follow bearerAuth: 403 insufficient_scope unless the token carries `scope`. */
export function requireScope(scope: string, realmName: string): RequestHandler {
  const realm = quote(realmName);
  return (req, _res, next) => {
    const principal = req.principal;
    if (!principal)
      throw new OAuthError('unauthorized', 'bearer token required', {
        'WWW-Authenticate': `Bearer realm=${realm}`,
      });
    if (!hasScope(principal, scope)) {
      throw new OAuthError('insufficient_scope', `the token lacks the scope ${scope}`, {
        'WWW-Authenticate': `${challenge(realm, 'insufficient_scope', undefined)}, scope=${quote(scope)}`,
      });
    }
    next();
  };
}

/** Adapts the introspection client to a TokenVerifier: inactive (or expired since caching) → invalid_token. */
export function introspectionVerifier(
  client: IntrospectionClient,
  now: () => number = Date.now,
): TokenVerifier {
  return async (token) => {
    const answer = await client.introspect(token);
    if (!answer.active || (answer.exp !== undefined && answer.exp * 1000 <= now())) {
      throw new OAuthError('invalid_token', 'token is not active');
    }
    return principalFromIntrospection(answer);
  };
}

function challenge(realm: string, error: string, description: string | undefined): string {
  const base = `Bearer realm=${realm}, error="${error}"`;
  return description === undefined ? base : `${base}, error_description=${quote(description)}`;
}

function invalidToken(realm: string, description: string): OAuthError {
  return new OAuthError('invalid_token', description, {
    'WWW-Authenticate': challenge(realm, 'invalid_token', description),
  });
}

/** RFC 9110 §5.6.4 quoted-string: escape backslash and double quote. */
function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
