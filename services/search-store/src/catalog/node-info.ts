import { createHash } from 'node:crypto';
import { arch, availableParallelism, release, type as osType } from 'node:os';
import type { Queryable } from '../storage/queryable';
import { ES_VERSION, findClusterUuid } from './cluster-info';
import { INDEX_VERSION_CREATED, nestSettings } from './index-settings';
import { simpleMatcher } from '../text/simple-match';

/** What a node reports of itself (config values; the same ones `/` and `_cat/nodes` show). */
export interface NodeIdentity {
  clusterName: string;
  nodeName: string;
  httpPort: number;
  dataPath: string;
  maxContentLength: number;
}

/** The sections of ES "Nodes info API" (`NodesInfoMetrics.Metric`); `_all` is every one. */
export const NODE_INFO_METRICS = [
  'settings',
  'os',
  'process',
  'jvm',
  'thread_pool',
  'transport',
  'http',
  'remote_cluster_server',
  'plugins',
  'ingest',
  'aggregations',
  'indices',
] as const;
export type NodeInfoMetric = (typeof NODE_INFO_METRICS)[number];

/** The one node's roles: data, ingest and master, the `dim` `_cat/nodes` shows. */
export const NODE_ROLES = ['data', 'ingest', 'master'] as const;

/**
 * The node id: 22 base64url characters as ES shows ids, derived from the cluster uuid and the node
 * name, so every instance of one deployment answers the same id (`_cat/nodes` shows its first four).
 */
export async function findNodeId(db: Queryable, nodeName: string): Promise<string> {
  const cluster = await findClusterUuid(db);
  return createHash('sha256').update(`${cluster}\u0000${nodeName}`).digest('base64url').slice(0, 22);
}

const HOST = '127.0.0.1';
const TRANSPORT_PORT = 9300;

/** The node's entry in `nodes`, with the basic fields always and the asked sections. */
export function nodeInfo(
  node: NodeIdentity,
  metrics: ReadonlySet<NodeInfoMetric>,
  flatSettings: boolean,
): Record<string, unknown> {
  const info: Record<string, unknown> = {
    name: node.nodeName,
    transport_address: `${HOST}:${TRANSPORT_PORT}`,
    host: HOST,
    ip: HOST,
    version: ES_VERSION.number,
    index_version: Number(INDEX_VERSION_CREATED),
    build_flavor: ES_VERSION.build_flavor,
    build_type: ES_VERSION.build_type,
    build_hash: ES_VERSION.build_hash,
    roles: [...NODE_ROLES],
    attributes: {},
  };
  const processors = availableParallelism();
  const sections: Record<NodeInfoMetric, () => unknown> = {
    settings: () => {
      const flat: Record<string, string> = {
        'cluster.name': node.clusterName,
        'node.name': node.nodeName,
        'path.data': node.dataPath,
        'http.port': String(node.httpPort),
      };
      return flatSettings ? flat : nestSettings(flat);
    },
    os: () => ({
      refresh_interval_in_millis: 1000,
      name: osType(),
      arch: arch(),
      version: release(),
      available_processors: processors,
      allocated_processors: processors,
    }),
    process: () => ({ refresh_interval_in_millis: 1000, id: process.pid, mlockall: false }),
    // Not a JVM: the section is there (clients read it) with only what is true of this process.
    jvm: () => ({ pid: process.pid, start_time_in_millis: Math.round(Date.now() - process.uptime() * 1000) }),
    thread_pool: () => ({}),
    transport: () => ({
      bound_address: [`${HOST}:${TRANSPORT_PORT}`],
      publish_address: `${HOST}:${TRANSPORT_PORT}`,
      profiles: {},
    }),
    http: () => ({
      bound_address: [`${HOST}:${node.httpPort}`],
      publish_address: `${HOST}:${node.httpPort}`,
      max_content_length_in_bytes: node.maxContentLength,
    }),
    remote_cluster_server: () => ({ bound_address: [], publish_address: '' }),
    plugins: () => [],
    ingest: () => ({ processors: [] }),
    aggregations: () => ({}),
    indices: () => ({ total_indexing_buffer_in_bytes: 0 }),
  };
  for (const metric of NODE_INFO_METRICS) {
    if (!metrics.has(metric)) continue;
    info[metric] = sections[metric]();
    // ES writes `modules` beside `plugins`, and `total_indexing_buffer` at the top with `indices`.
    if (metric === 'plugins') info.modules = [];
  }
  return info;
}

/**
 * Whether node specs select this node (ES `DiscoveryNodes.resolveNodes`): `_all`, `_local`, `_master`,
 * its id, name, host or ip, wildcards over id and name, `<role>:true|false`. At most 100 specs.
 */
export function selectsNode(specs: readonly string[], node: { id: string; name: string }): boolean {
  let selected = false;
  for (const spec of specs.slice(0, 100)) {
    if (spec === '_all' || spec === '_local' || spec === '_master') selected = true;
    else if (spec === node.id || spec === node.name || spec === HOST) selected = true;
    else if (spec.includes(':')) {
      const [role = '', value = ''] = spec.split(':', 2);
      const has = (NODE_ROLES as readonly string[]).includes(role);
      if (value === 'true' && has) selected = true;
      if (value === 'false' && has) selected = false;
    } else if (spec.includes('*')) {
      const matches = simpleMatcher(spec);
      if (matches(node.id) || matches(node.name)) selected = true;
    }
  }
  return selected;
}
