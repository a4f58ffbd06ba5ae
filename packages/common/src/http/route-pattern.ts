import type { Request } from 'express';

/**
 * The matched route pattern (`/:index/_doc/:id`), never the raw path: raw paths hold ids and would
 * explode metric cardinality. Unmatched requests are labelled by a fixed string.
 */
export function routePattern(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return 'unmatched';
}
