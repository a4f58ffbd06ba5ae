import { findRouteScope } from '../../src/auth/route-scope';

describe('route → scope table', () => {
  it.each([
    // search.read
    ['GET', '/', 'search.read', 'cluster:monitor/main', undefined],
    ['HEAD', '/', 'search.read', 'cluster:monitor/main', undefined],
    ['GET', '/_search', 'search.read', 'indices:data/read/search', undefined],
    ['POST', '/logs/_search', 'search.read', 'indices:data/read/search', 'logs'],
    ['GET', '/a,b/_search', 'search.read', 'indices:data/read/search', 'a,b'],
    ['GET', '/_all/_search', 'search.read', 'indices:data/read/search', '_all'],
    ['POST', '/logs/_count', 'search.read', 'indices:data/read/search', 'logs'],
    ['GET', '/logs/_doc/1', 'search.read', 'indices:data/read/get', 'logs'],
    ['HEAD', '/logs/_doc/1', 'search.read', 'indices:data/read/get', 'logs'],
    ['GET', '/logs/_source/1', 'search.read', 'indices:data/read/get', 'logs'],
    ['GET', '/logs/_mapping', 'search.read', 'indices:admin/mappings/get', 'logs'],
    ['GET', '/_mapping', 'search.read', 'indices:admin/mappings/get', undefined],
    ['GET', '/logs/_settings', 'search.read', 'indices:monitor/settings/get', 'logs'],
    ['GET', '/_aliases', 'search.read', 'indices:admin/aliases/get', undefined],
    ['GET', '/logs/_alias', 'search.read', 'indices:admin/aliases/get', 'logs'],
    ['GET', '/logs', 'search.read', 'indices:admin/get', 'logs'],
    ['HEAD', '/logs', 'search.read', 'indices:admin/get', 'logs'],
    ['GET', '/_cat/indices', 'search.read', 'indices:monitor/stats', undefined],
    ['GET', '/_cat/indices/logs', 'search.read', 'indices:monitor/stats', 'logs'],
    ['GET', '/_cat/nodes', 'search.read', 'cluster:monitor/nodes/stats', undefined],
    ['GET', '/_cat/shards', 'search.read', 'cluster:monitor/state', undefined],
    ['GET', '/my%2Dindex/_search', 'search.read', 'indices:data/read/search', 'my-index'],
    // search.write
    ['POST', '/logs/_doc', 'search.write', 'indices:data/write/index', 'logs'],
    ['PUT', '/logs/_doc/1', 'search.write', 'indices:data/write/index', 'logs'],
    ['POST', '/logs/_doc/1', 'search.write', 'indices:data/write/index', 'logs'],
    ['PUT', '/logs/_create/1', 'search.write', 'indices:data/write/index', 'logs'],
    ['DELETE', '/logs/_doc/1', 'search.write', 'indices:data/write/delete', 'logs'],
    ['POST', '/logs/_update/1', 'search.write', 'indices:data/write/update', 'logs'],
    ['POST', '/_bulk', 'search.write', 'indices:data/write/bulk', undefined],
    ['PUT', '/_bulk', 'search.write', 'indices:data/write/bulk', undefined],
    ['POST', '/logs/_bulk', 'search.write', 'indices:data/write/bulk', 'logs'],
    ['POST', '/_refresh', 'search.write', 'indices:admin/refresh', undefined],
    ['POST', '/logs/_refresh', 'search.write', 'indices:admin/refresh', 'logs'],
    // search.admin
    ['PUT', '/logs', 'search.admin', 'indices:admin/create', 'logs'],
    ['DELETE', '/logs', 'search.admin', 'indices:admin/delete', 'logs'],
    ['DELETE', '/a,b,c', 'search.admin', 'indices:admin/delete', 'a,b,c'],
    ['DELETE', '/_all', 'search.admin', 'indices:admin/delete', '_all'],
    ['PUT', '/logs/_mapping', 'search.admin', 'indices:admin/mapping/put', 'logs'],
    ['PUT', '/logs/_settings', 'search.admin', 'indices:admin/settings/update', 'logs'],
    ['POST', '/_aliases', 'search.admin', 'indices:admin/aliases', undefined],
    ['PUT', '/logs/_alias/current', 'search.admin', 'indices:admin/aliases', 'logs'],
    ['DELETE', '/logs/_alias/current', 'search.admin', 'indices:admin/aliases', 'logs'],
    ['POST', '/logs/_clone/logs-copy', 'search.admin', 'indices:admin/resize', 'logs'],
    ['PUT', '/logs/_clone/logs-copy', 'search.admin', 'indices:admin/resize', 'logs'],
    ['POST', '/_reindex', 'search.admin', 'indices:data/write/reindex', undefined],
    ['PUT', '/_cluster/settings', 'search.admin', 'cluster:admin/settings/update', undefined],
    ['GET', '/_cluster/settings', 'search.admin', 'cluster:monitor/settings', undefined],
  ])('%s %s needs %s (%s)', (method, path, scope, action, index) => {
    const expected = index === undefined ? { scope, action } : { scope, action, index };
    expect(findRouteScope(method, path)).toEqual(expected);
  });

  it('ignores a trailing slash', () => {
    expect(findRouteScope('GET', '/logs/_search/')).toEqual(findRouteScope('GET', '/logs/_search'));
  });

  it('asks search.read for an unknown read and search.admin for an unknown write', () => {
    expect(findRouteScope('GET', '/_unknown/thing/here').scope).toBe('search.read');
    expect(findRouteScope('POST', '/_unknown').scope).toBe('search.admin');
    expect(findRouteScope('PATCH', '/logs').scope).toBe('search.admin');
    expect(findRouteScope('DELETE', '/logs/_search').scope).toBe('search.admin');
  });
});
