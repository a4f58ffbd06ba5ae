/**
 * Which scope each REST route needs, keyed on method + path shape, with the Elasticsearch action name
 * that a 403 reports ("action [indices:data/read/search] is unauthorized for user [u]…").
 * - search.read: search, count, get, cat, mapping/settings/alias reads, GET /.
 * - search.write: document writes, bulk, update, refresh.
 * - search.admin: index management, mappings, settings, aliases, clone, reindex, cluster settings.
 * Rules are tried in order, so the `_`-prefixed APIs come before the `/:index/…` shapes (an index name
 * cannot start with `_`). A route that is in no rule needs search.read when it only reads (GET/HEAD)
 * and search.admin otherwise: an unknown write is never cheaper than a known one.
 */
export type SearchScope = 'search.read' | 'search.write' | 'search.admin';
type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export interface RouteScope {
  scope: SearchScope;
  action: string;
  /** The `:index` segment when the route names one (for the 403 message). */
  index?: string;
}

interface Rule {
  methods: readonly Method[];
  segments: readonly string[];
  scope: SearchScope;
  action: string;
}

const READ = 'search.read';
const WRITE = 'search.write';
const ADMIN = 'search.admin';
const GET: readonly Method[] = ['GET'];
const GET_POST: readonly Method[] = ['GET', 'POST'];

function rule(
  methods: readonly Method[],
  paths: string | string[],
  scope: SearchScope,
  action: string,
): Rule[] {
  return (Array.isArray(paths) ? paths : [paths]).map((path) => ({
    methods,
    segments: path.split('/').filter(Boolean),
    scope,
    action,
  }));
}

const RULES: readonly Rule[] = [
  ...rule(GET, '/', READ, 'cluster:monitor/main'),
  // Cluster-level and `_`-prefixed APIs.
  ...rule(GET, ['/_cat/indices', '/_cat/indices/:index'], READ, 'indices:monitor/stats'),
  ...rule(GET, '/_cat/nodes', READ, 'cluster:monitor/nodes/stats'),
  ...rule(GET, ['/_cat', '/_cat/*'], READ, 'cluster:monitor/state'),
  ...rule(GET, '/_cluster/settings', ADMIN, 'cluster:monitor/settings'),
  ...rule(['PUT'], '/_cluster/settings', ADMIN, 'cluster:admin/settings/update'),
  ...rule(GET, ['/_cluster/health', '/_cluster/health/:index'], READ, 'cluster:monitor/health'),
  ...rule(GET, ['/_cluster/state', '/_cluster/state/*'], READ, 'cluster:monitor/state'),
  ...rule(GET, ['/_nodes', '/_nodes/*'], READ, 'cluster:monitor/nodes/info'),
  ...rule(GET_POST, ['/_search', '/_count'], READ, 'indices:data/read/search'),
  ...rule(
    ['GET', 'POST', 'DELETE'],
    ['/_search/scroll', '/_search/scroll/:id'],
    READ,
    'indices:data/read/scroll',
  ),
  ...rule(GET_POST, '/_msearch', READ, 'indices:data/read/msearch'),
  ...rule(GET_POST, '/_mget', READ, 'indices:data/read/mget'),
  ...rule(GET_POST, '/_field_caps', READ, 'indices:data/read/field_caps'),
  ...rule(GET_POST, '/_analyze', READ, 'indices:admin/analyze'),
  ...rule(['POST', 'DELETE'], '/_pit', READ, 'indices:data/read/open_point_in_time'),
  ...rule(GET, ['/_mapping', '/_mapping/field/:field'], READ, 'indices:admin/mappings/get'),
  ...rule(GET, ['/_settings', '/_settings/:name'], READ, 'indices:monitor/settings/get'),
  ...rule(['PUT'], '/_settings', ADMIN, 'indices:admin/settings/update'),
  ...rule(
    GET,
    ['/_alias', '/_alias/:name', '/_aliases', '/_aliases/:name'],
    READ,
    'indices:admin/aliases/get',
  ),
  ...rule(['POST'], '/_aliases', ADMIN, 'indices:admin/aliases'),
  ...rule(GET, '/_stats', READ, 'indices:monitor/stats'),
  ...rule(['POST', 'PUT'], '/_bulk', WRITE, 'indices:data/write/bulk'),
  ...rule(GET_POST, '/_refresh', WRITE, 'indices:admin/refresh'),
  ...rule(GET_POST, '/_flush', WRITE, 'indices:admin/flush'),
  ...rule(['POST'], '/_reindex', ADMIN, 'indices:data/write/reindex'),
  // Per-index reads.
  ...rule(GET_POST, ['/:index/_search', '/:index/_count'], READ, 'indices:data/read/search'),
  ...rule(GET_POST, '/:index/_msearch', READ, 'indices:data/read/msearch'),
  ...rule(GET_POST, '/:index/_mget', READ, 'indices:data/read/mget'),
  ...rule(GET, ['/:index/_doc/:id', '/:index/_source/:id'], READ, 'indices:data/read/get'),
  ...rule(GET_POST, '/:index/_explain/:id', READ, 'indices:data/read/explain'),
  ...rule(GET_POST, '/:index/_field_caps', READ, 'indices:data/read/field_caps'),
  ...rule(GET_POST, '/:index/_analyze', READ, 'indices:admin/analyze'),
  ...rule(GET_POST, '/:index/_validate/query', READ, 'indices:admin/validate/query'),
  ...rule(['POST'], '/:index/_pit', READ, 'indices:data/read/open_point_in_time'),
  ...rule(GET, ['/:index/_mapping', '/:index/_mapping/field/:field'], READ, 'indices:admin/mappings/get'),
  ...rule(GET, ['/:index/_settings', '/:index/_settings/:name'], READ, 'indices:monitor/settings/get'),
  ...rule(
    GET,
    ['/:index/_alias', '/:index/_alias/:name', '/:index/_aliases', '/:index/_aliases/:name'],
    READ,
    'indices:admin/aliases/get',
  ),
  ...rule(GET, '/:index/_stats', READ, 'indices:monitor/stats'),
  ...rule(GET, '/:index', READ, 'indices:admin/get'),
  // Per-index document writes.
  ...rule(['POST'], '/:index/_doc', WRITE, 'indices:data/write/index'),
  ...rule(['PUT', 'POST'], ['/:index/_doc/:id', '/:index/_create/:id'], WRITE, 'indices:data/write/index'),
  ...rule(['DELETE'], '/:index/_doc/:id', WRITE, 'indices:data/write/delete'),
  ...rule(['POST'], '/:index/_update/:id', WRITE, 'indices:data/write/update'),
  ...rule(['POST', 'PUT'], '/:index/_bulk', WRITE, 'indices:data/write/bulk'),
  ...rule(['POST'], '/:index/_delete_by_query', WRITE, 'indices:data/write/delete/byquery'),
  ...rule(['POST'], '/:index/_update_by_query', WRITE, 'indices:data/write/update/byquery'),
  ...rule(GET_POST, '/:index/_refresh', WRITE, 'indices:admin/refresh'),
  ...rule(GET_POST, '/:index/_flush', WRITE, 'indices:admin/flush'),
  // Per-index management.
  ...rule(['PUT', 'POST'], '/:index/_mapping', ADMIN, 'indices:admin/mapping/put'),
  ...rule(['PUT'], '/:index/_settings', ADMIN, 'indices:admin/settings/update'),
  ...rule(
    ['PUT', 'POST', 'DELETE'],
    ['/:index/_alias/:name', '/:index/_aliases/:name'],
    ADMIN,
    'indices:admin/aliases',
  ),
  ...rule(['PUT', 'POST'], '/:index/_clone/:target', ADMIN, 'indices:admin/resize'),
  ...rule(['POST'], '/:index/_open', ADMIN, 'indices:admin/open'),
  ...rule(['POST'], '/:index/_close', ADMIN, 'indices:admin/close'),
  ...rule(['PUT'], '/:index/_block/:block', ADMIN, 'indices:admin/block/add'),
  ...rule(['PUT'], '/:index', ADMIN, 'indices:admin/create'),
  ...rule(['DELETE'], '/:index', ADMIN, 'indices:admin/delete'),
];

export function findRouteScope(method: string, path: string): RouteScope {
  const upper = method.toUpperCase();
  // HEAD is GET without a body, as in express and Elasticsearch's router.
  const asMethod = (upper === 'HEAD' ? 'GET' : upper) as Method;
  const segments = path.split('/').filter(Boolean);
  for (const candidate of RULES) {
    if (!candidate.methods.includes(asMethod)) continue;
    const index = match(candidate.segments, segments);
    if (index === false) continue;
    return index === undefined
      ? { scope: candidate.scope, action: candidate.action }
      : { scope: candidate.scope, action: candidate.action, index };
  }
  return asMethod === 'GET'
    ? { scope: READ, action: 'cluster:monitor/unknown' }
    : { scope: ADMIN, action: 'cluster:admin/unknown' };
}

/** False when the shape does not match; otherwise the decoded `:index` segment, if the shape has one. */
function match(pattern: readonly string[], segments: readonly string[]): string | undefined | false {
  let index: string | undefined;
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i]!;
    if (expected === '*') return i < segments.length ? index : false;
    const actual = segments[i];
    if (actual === undefined) return false;
    if (expected === ':index') index = safeDecode(actual);
    else if (!expected.startsWith(':') && expected !== actual) return false;
  }
  return pattern.length === segments.length ? index : false;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
