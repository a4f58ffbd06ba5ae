import type { Express } from 'express';
import { buildIdleApp, registeredRoutes, type RegisteredRoute } from '../support/registered-routes';

/**
 * The scope of every route, read from the routes express actually holds: each one's first handler must be
 * the scope guard, and every router must match paths case-sensitively (issue 17: a path table matched
 * case-sensitively while express routed case-insensitively, so `/books/_Refresh` passed as a read).
 */
/** Probes and metrics, open without credentials by design (authenticate-request.ts), from @acme/common. */
const OPEN_PATHS = new Set(['/health', '/ready', '/metrics']);

describe('route scopes', () => {
  let built: { app: Express; close(): Promise<void> };
  let routes: RegisteredRoute[];
  beforeAll(() => {
    built = buildIdleApp();
    routes = registeredRoutes(built.app).routes;
  });
  afterAll(() => built.close());

  it('finds every route, each guarded by its scope as its first handler', () => {
    expect(routes.length).toBeGreaterThan(50);
    const unguarded = routes
      .filter((r) => r.access === undefined && !OPEN_PATHS.has(r.path))
      .map((r) => `${r.method} ${r.path}`);
    expect(unguarded).toEqual([]);
  });

  it('routes case-sensitively in the app and in every router', () => {
    const { routers } = registeredRoutes(built.app);
    expect(routers[0]?.caseSensitive).toBe(true); // the app's own router
    const serving = routers.filter((r) => r.stack.some((l) => l.route && !OPEN_PATHS.has(l.route.path)));
    expect(serving.length).toBeGreaterThan(10);
    expect(serving.filter((r) => r.caseSensitive !== true)).toEqual([]);
  });

  const access = (method: string, path: string) =>
    routes.find((r) => r.method === method && r.path === path)?.access;

  it.each([
    // search.read
    ['GET', '/', 'search.read', 'cluster:monitor/main'],
    ['GET', '/_search', 'search.read', 'indices:data/read/search'],
    ['POST', '/:index/_search', 'search.read', 'indices:data/read/search'],
    ['POST', '/:index/_count', 'search.read', 'indices:data/read/search'],
    ['GET', '/:index/_doc/:id', 'search.read', 'indices:data/read/get'],
    ['GET', '/:index/_source/:id', 'search.read', 'indices:data/read/get'],
    ['POST', '/_mget', 'search.read', 'indices:data/read/mget'],
    ['GET', '/:index/_explain/:id', 'search.read', 'indices:data/read/explain'],
    ['GET', '/_field_caps', 'search.read', 'indices:data/read/field_caps'],
    ['POST', '/:index/_field_caps', 'search.read', 'indices:data/read/field_caps'],
    ['POST', '/:index/_explain/:id', 'search.read', 'indices:data/read/explain'],
    ['GET', '/:index/_mget', 'search.read', 'indices:data/read/mget'],
    ['POST', '/_msearch', 'search.read', 'indices:data/read/msearch'],
    ['GET', '/:index/_msearch', 'search.read', 'indices:data/read/msearch'],
    ['GET', '/:index/_mapping', 'search.read', 'indices:admin/mappings/get'],
    ['GET', '/_mapping', 'search.read', 'indices:admin/mappings/get'],
    ['GET', '/:index/_settings', 'search.read', 'indices:monitor/settings/get'],
    ['GET', '/_settings/:name', 'search.read', 'indices:monitor/settings/get'],
    ['GET', '/_aliases', 'search.read', 'indices:admin/aliases/get'],
    ['GET', '/:index/_alias', 'search.read', 'indices:admin/aliases/get'],
    ['GET', '/_alias/:name', 'search.read', 'indices:admin/aliases/get'],
    ['GET', '/:index/_alias/:name', 'search.read', 'indices:admin/aliases/get'],
    ['GET', '/:index', 'search.read', 'indices:admin/get'],
    ['GET', '/_cat/indices', 'search.read', 'indices:monitor/stats'],
    ['GET', '/_cat/nodes', 'search.read', 'cluster:monitor/nodes/stats'],
    ['GET', '/_nodes', 'search.read', 'cluster:monitor/nodes/info'],
    ['GET', '/_nodes/:nodeId', 'search.read', 'cluster:monitor/nodes/info'],
    ['GET', '/_nodes/:nodeId/:metrics', 'search.read', 'cluster:monitor/nodes/info'],
    ['GET', '/_nodes/:nodeId/info/:metrics', 'search.read', 'cluster:monitor/nodes/info'],
    ['GET', '/_cluster/health', 'search.read', 'cluster:monitor/health'],
    ['GET', '/_cluster/health/:index', 'search.read', 'cluster:monitor/health'],
    ['GET', '/_cat/health', 'search.read', 'cluster:monitor/health'],
    ['GET', '/_cat/count/:index', 'search.read', 'indices:data/read/search'],
    ['GET', '/_cat/aliases/:name', 'search.read', 'indices:admin/aliases/get'],
    ['GET', '/_stats', 'search.read', 'indices:monitor/stats'],
    ['GET', '/:index/_stats/:metric', 'search.read', 'indices:monitor/stats'],
    ['POST', '/:index/_analyze', 'search.read', 'indices:admin/analyze'],
    ['GET', '/_search/scroll', 'search.read', 'indices:data/read/scroll'],
    ['POST', '/_search/scroll/:scroll_id', 'search.read', 'indices:data/read/scroll'],
    ['DELETE', '/_search/scroll', 'search.read', 'indices:data/read/scroll/clear'],
    ['DELETE', '/_search/scroll/:scroll_id', 'search.read', 'indices:data/read/scroll/clear'],
    ['POST', '/:index/_pit', 'search.read', 'indices:data/read/open_point_in_time'],
    ['DELETE', '/_pit', 'search.read', 'indices:data/read/close_point_in_time'],
    ['GET', '/_tasks', 'search.read', 'cluster:monitor/tasks/lists'],
    ['GET', '/_tasks/:task_id', 'search.read', 'cluster:monitor/task/get'],
    ['GET', '/_index_template', 'search.read', 'indices:admin/index_template/get'],
    ['GET', '/_index_template/:name', 'search.read', 'indices:admin/index_template/get'],
    ['GET', '/_component_template', 'search.read', 'cluster:admin/component_template/get'],
    ['GET', '/_component_template/:name', 'search.read', 'cluster:admin/component_template/get'],
    ['GET', '/_template', 'search.read', 'indices:admin/template/get'],
    ['GET', '/_template/:name', 'search.read', 'indices:admin/template/get'],
    // search.write
    ['POST', '/:index/_doc', 'search.write', 'indices:data/write/index'],
    ['PUT', '/:index/_doc/:id', 'search.write', 'indices:data/write/index'],
    ['PUT', '/:index/_create/:id', 'search.write', 'indices:data/write/index'],
    ['DELETE', '/:index/_doc/:id', 'search.write', 'indices:data/write/delete'],
    ['POST', '/:index/_update/:id', 'search.write', 'indices:data/write/update'],
    ['POST', '/_bulk', 'search.write', 'indices:data/write/bulk'],
    ['PUT', '/:index/_bulk', 'search.write', 'indices:data/write/bulk'],
    ['GET', '/_refresh', 'search.write', 'indices:admin/refresh'],
    ['POST', '/:index/_refresh', 'search.write', 'indices:admin/refresh'],
    ['GET', '/_flush', 'search.write', 'indices:admin/flush'],
    ['POST', '/:index/_flush', 'search.write', 'indices:admin/flush'],
    ['POST', '/_forcemerge', 'search.write', 'indices:admin/forcemerge'],
    ['POST', '/:index/_forcemerge', 'search.write', 'indices:admin/forcemerge'],
    ['POST', '/:index/_delete_by_query', 'search.write', 'indices:data/write/delete/byquery'],
    ['POST', '/:index/_update_by_query', 'search.write', 'indices:data/write/update/byquery'],
    ['POST', '/_tasks/:task_id/_cancel', 'search.write', 'cluster:admin/tasks/cancel'],
    ['POST', '/_tasks/_cancel', 'search.write', 'cluster:admin/tasks/cancel'],
    // search.admin
    ['PUT', '/:index', 'search.admin', 'indices:admin/create'],
    ['DELETE', '/:index', 'search.admin', 'indices:admin/delete'],
    ['PUT', '/:index/_mapping', 'search.admin', 'indices:admin/mapping/put'],
    ['PUT', '/:index/_settings', 'search.admin', 'indices:admin/settings/update'],
    ['POST', '/_aliases', 'search.admin', 'indices:admin/aliases'],
    ['PUT', '/:index/_alias/:name', 'search.admin', 'indices:admin/aliases'],
    ['POST', '/:index/_alias/:name', 'search.admin', 'indices:admin/aliases'],
    ['DELETE', '/:index/_alias/:name', 'search.admin', 'indices:admin/aliases'],
    ['DELETE', '/:index/_aliases/:name', 'search.admin', 'indices:admin/aliases'],
    ['POST', '/:index/_clone/:target', 'search.admin', 'indices:admin/resize'],
    ['POST', '/:index/_close', 'search.admin', 'indices:admin/close'],
    ['POST', '/:index/_open', 'search.admin', 'indices:admin/open'],
    ['POST', '/_reindex', 'search.admin', 'indices:data/write/reindex'],
    ['GET', '/_cluster/settings', 'search.admin', 'cluster:monitor/settings'],
    ['PUT', '/_cluster/settings', 'search.admin', 'cluster:admin/settings/update'],
    ['PUT', '/_index_template/:name', 'search.admin', 'indices:admin/index_template/put'],
    ['POST', '/_index_template/:name', 'search.admin', 'indices:admin/index_template/put'],
    ['DELETE', '/_index_template/:name', 'search.admin', 'indices:admin/index_template/delete'],
    [
      'POST',
      '/_index_template/_simulate_index/:name',
      'search.admin',
      'indices:admin/index_template/simulate_index',
    ],
    ['POST', '/_index_template/_simulate', 'search.admin', 'indices:admin/index_template/simulate'],
    ['POST', '/_index_template/_simulate/:name', 'search.admin', 'indices:admin/index_template/simulate'],
    ['PUT', '/_component_template/:name', 'search.admin', 'cluster:admin/component_template/put'],
    ['POST', '/_component_template/:name', 'search.admin', 'cluster:admin/component_template/put'],
    ['DELETE', '/_component_template/:name', 'search.admin', 'cluster:admin/component_template/delete'],
    ['PUT', '/_template/:name', 'search.admin', 'indices:admin/template/put'],
    ['DELETE', '/_template/:name', 'search.admin', 'indices:admin/template/delete'],
  ])('%s %s needs %s (%s)', (method, path, scope, action) => {
    expect(access(method, path)).toEqual({ scope, action });
  });
});
