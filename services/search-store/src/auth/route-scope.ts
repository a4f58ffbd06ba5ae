import type { RequestHandler } from 'express';
import { hasScope, principalName } from '@acme/common';
import { missingCredentials, unauthorizedAction } from './security-errors';

/**
 * The scope a route needs, with the Elasticsearch action name a 403 reports ("action
 * [indices:data/read/search] is unauthorized for user [u]…"):
 * - search.read: search, count, get, cat, mapping/settings/alias reads, GET /.
 * - search.write: document writes, bulk, update, refresh.
 * - search.admin: index management, mappings, settings, aliases, clone, reindex, cluster settings.
 * Each route states its own (http/scoped-router.ts registers none without one), so the check runs on
 * the route express actually chose: a path-shaped table beside the routes once disagreed with them on
 * letter case and let a read token refresh an index (issue 17).
 */
export type SearchScope = 'search.read' | 'search.write' | 'search.admin';

export interface RouteAccess {
  scope: SearchScope;
  action: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The name a 403 shows: the Basic user name, else the principal's (set by authenticate-request.ts). */
    authenticatedUser?: string;
  }
}

const GUARDS = new WeakMap<RequestHandler, RouteAccess>();

/**
 * The first handler of every route: the authenticated principal must hold the route's scope. Without
 * a principal (no authentication in front) nothing passes.
 */
export function requireScope(access: RouteAccess): RequestHandler {
  const guard: RequestHandler = (req, _res, next) => {
    const principal = req.principal;
    if (!principal) throw missingCredentials(req.originalUrl);
    if (!hasScope(principal, access.scope)) {
      const index = (req.params as Record<string, string | undefined> | undefined)?.index;
      throw unauthorizedAction({
        action: access.action,
        user: req.authenticatedUser ?? principalName(principal),
        scopes: principal.scopes,
        requiredScope: access.scope,
        ...(index === undefined ? {} : { index }),
      });
    }
    next();
  };
  GUARDS.set(guard, access);
  return guard;
}

/** The access a handler enforces when it is a scope guard (for the tests that walk the routes). */
export function guardedAccess(handler: unknown): RouteAccess | undefined {
  return typeof handler === 'function' ? GUARDS.get(handler as RequestHandler) : undefined;
}
