import { Router, type RequestHandler } from 'express';
import type { RouteParameters } from 'express-serve-static-core';
import { requireScope, type SearchScope } from '../auth/route-scope';
import { readArmedBody } from './read-body';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ScopedRouter {
  /** The express router to mount. Add routes through `route` only: it is the one that checks scopes. */
  readonly router: Router;
  /**
   * `methods path` needs `scope`; `action` is the Elasticsearch action name a 403 reports. The scope
   * check runs first, then the body is read (http/read-body.ts), then the handlers. GET also serves
   * HEAD (express, and Elasticsearch's router).
   */
  route<Path extends string>(
    methods: RouteMethod | readonly RouteMethod[],
    path: Path,
    scope: SearchScope,
    action: string,
    ...handlers: RequestHandler<RouteParameters<Path>>[]
  ): void;
}

/**
 * A case-sensitive router whose every route carries its scope. Case-sensitive as Elasticsearch's
 * PathTrie: `/_Cluster/settings` is not the cluster settings API but a path no handler serves.
 */
export function scopedRouter(): ScopedRouter {
  const router = Router({ caseSensitive: true });
  return {
    router,
    route(methods, path, scope, action, ...handlers) {
      const guard = requireScope({ scope, action });
      // The scope before the body: an unauthorised caller never makes us read or parse it (issue 19).
      const chain = [guard, readArmedBody, ...(handlers as unknown as RequestHandler[])];
      for (const method of typeof methods === 'string' ? [methods] : methods) {
        if (method === 'GET') router.get(path, ...chain);
        else if (method === 'POST') router.post(path, ...chain);
        else if (method === 'PUT') router.put(path, ...chain);
        else router.delete(path, ...chain);
      }
    },
  };
}
