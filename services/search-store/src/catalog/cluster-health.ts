import { setTimeout as sleep } from 'node:timers/promises';
import { indexHealthOf, replicasOf } from './index-settings';
import { EsError } from '@acme/common';
import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression, type Catalog } from './index-expression';

export type HealthStatus = 'green' | 'yellow' | 'red';
const RANK: Record<HealthStatus, number> = { green: 0, yellow: 1, red: 2 };

/** One index's shards: one primary, always active; replicas never assigned on our one node. */
export interface IndexHealth {
  name: string;
  status: HealthStatus;
  replicas: number;
}

export interface HealthWait {
  status?: HealthStatus;
  /** `wait_for_active_shards`: a count, or `all` (every copy, replicas included). */
  activeShards?: number | 'all';
  /** `wait_for_nodes`: a test on the node count (we are one node). */
  nodes?: (count: number) => boolean;
}

export interface HealthRequest {
  /** The index expression of `/_cluster/health/{index}`; undefined for the whole cluster. */
  expression?: string;
  wait: HealthWait;
  timeoutMs: number;
  /** Stops waiting when the client has gone. */
  signal?: AbortSignal;
}

export interface ClusterHealth {
  status: HealthStatus;
  timedOut: boolean;
  indices: IndexHealth[];
  /** Percent of all shard copies of the cluster that are active (ES computes it cluster-wide). */
  activePercent: number;
}

/** How often a waiting health request looks at the catalog again. */
const POLL_MS = 200;

const STATUS_NAMES: ReadonlyMap<string, HealthStatus> = new Map([
  ['green', 'green'],
  ['yellow', 'yellow'],
  ['red', 'red'],
]);

/** ES ClusterHealthStatus#fromString. */
export function parseHealthStatus(text: string): HealthStatus {
  const status = STATUS_NAMES.get(text.toLowerCase());
  if (!status) throw new EsError('illegal_argument_exception', `unknown cluster health status [${text}]`);
  return status;
}

function indexHealth(index: IndexRecord): IndexHealth {
  return { name: index.name, status: indexHealthOf(index.settings), replicas: replicasOf(index.settings) };
}

function snapshot(catalog: Catalog, expression: string | undefined): ClusterHealth & { missing: boolean } {
  let missing = false;
  let selected = catalog.indices;
  if (expression !== undefined) {
    try {
      selected = resolveIndexExpression(catalog, expression, CLOSED_ALLOWED);
    } catch (error) {
      if (!(error instanceof EsError) || error.type !== 'index_not_found_exception') throw error;
      // TransportClusterHealthAction: a named index that does not exist makes the answer red.
      missing = true;
      selected = [];
    }
  }
  const indices = selected.map(indexHealth);
  let status: HealthStatus = missing ? 'red' : 'green';
  for (const index of indices) if (RANK[index.status] > RANK[status]) status = index.status;
  // ClusterStateHealth: 100 when green, else active copies over all copies of every index.
  const all = catalog.indices.map(indexHealth);
  const copies = all.reduce((n, i) => n + 1 + i.replicas, 0);
  const activePercent = status === 'green' || copies === 0 ? 100 : (100 * all.length) / copies;
  return { status, timedOut: false, indices, activePercent, missing };
}

function satisfied(health: ClusterHealth & { missing: boolean }, wait: HealthWait): boolean {
  if (health.missing) return false; // ES waits for named indices to exist
  if (wait.status !== undefined && RANK[health.status] > RANK[wait.status]) return false;
  if (wait.activeShards !== undefined) {
    const active = health.indices.length;
    const total = health.indices.reduce((n, i) => n + 1 + i.replicas, 0);
    if (active < (wait.activeShards === 'all' ? total : wait.activeShards)) return false;
  }
  if (wait.nodes && !wait.nodes(1)) return false;
  return true;
}

/**
 * ES "Cluster health API" for our one node: each index has one active primary and its replicas
 * unassigned (yellow, as `_cat/indices` shows). With wait conditions it looks again until they hold or
 * `timeout` passes (then `timedOut`); a named index that is missing is waited for, and red meanwhile.
 */
export async function clusterHealth(db: Queryable, request: HealthRequest): Promise<ClusterHealth> {
  const deadline = Date.now() + Math.max(0, request.timeoutMs);
  for (;;) {
    const health = snapshot(await loadCatalog(db), request.expression);
    if (satisfied(health, request.wait)) return health;
    const left = deadline - Date.now();
    // The loop is bounded by the timeout; a gone client stops it at once.
    if (left <= 0 || request.signal?.aborted) return { ...health, timedOut: true };
    try {
      await sleep(Math.min(POLL_MS, left), undefined, { signal: request.signal });
    } catch {
      return { ...health, timedOut: true };
    }
  }
}
