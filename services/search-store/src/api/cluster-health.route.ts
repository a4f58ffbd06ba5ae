import { type Router, type Request, type Response } from 'express';
import { EsError } from '@acme/common';
import {
  clusterHealth,
  parseHealthStatus,
  type ClusterHealth,
  type HealthWait,
  type IndexHealth,
} from '../catalog/cluster-health';
import { checkParams } from '../http/check-params';
import { parseBooleanParam, stringParam } from '../http/query-params';
import { RawJson } from '../http/raw-json';
import { scopedRouter } from '../http/scoped-router';
import { parseTimeParam } from '../http/time-param';
import { clientGoneSignal } from './client-gone';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

type Level = 'cluster' | 'indices' | 'shards';
const LEVELS: ReadonlyMap<string, Level> = new Map([
  ['CLUSTER', 'cluster'],
  ['INDICES', 'indices'],
  ['SHARDS', 'shards'],
]);

/** RestClusterHealthAction: `Level.valueOf(level.toUpperCase())`, whose failure ES answers as a 400. */
function parseLevel(value: unknown): Level {
  const text = stringParam(value);
  if (text === undefined) return 'cluster';
  const level = LEVELS.get(text.toUpperCase());
  if (!level) {
    throw new EsError(
      'illegal_argument_exception',
      `No enum constant org.elasticsearch.action.admin.cluster.health.ClusterHealthRequest.Level.${text.toUpperCase()}`,
    );
  }
  return level;
}

/** ActiveShardCount#parseString: `all`, `index-setting` (one copy here) or a count ≥ 0. */
function parseActiveShards(value: unknown): HealthWait['activeShards'] {
  const text = stringParam(value);
  if (text === undefined || text === '') return undefined;
  if (text === 'all') return 'all';
  if (text === 'index-setting') return 1;
  if (!/^\d{1,9}$/.test(text))
    throw new EsError('illegal_argument_exception', `cannot parse ActiveShardCount[${text}]`);
  return Number(text);
}

/** `wait_for_nodes`: `N`, `>=N`, `<=N`, `>N`, `<N` or `ge(N)`, `le(N)`, `gt(N)`, `lt(N)` (ES). */
function parseNodes(value: unknown): HealthWait['nodes'] {
  const text = stringParam(value);
  if (text === undefined || text === '') return undefined;
  const match = /^(>=|<=|>|<|ge\(|le\(|gt\(|lt\()?(\d{1,9})\)?$/.exec(text);
  if (!match) throw new EsError('illegal_argument_exception', `cannot parse wait_for_nodes [${text}]`);
  const n = Number(match[2]);
  const op = (match[1] ?? '').replace('(', '');
  if (op === '>=' || op === 'ge') return (count) => count >= n;
  if (op === '<=' || op === 'le') return (count) => count <= n;
  if (op === '>' || op === 'gt') return (count) => count > n;
  if (op === '<' || op === 'lt') return (count) => count < n;
  return (count) => count === n;
}

/** A Java double as ES prints it: `100.0`, `50.0`. */
function javaDouble(value: number): RawJson {
  return new RawJson(Number.isInteger(value) ? `${value}.0` : String(value));
}

function shardCounts(index: IndexHealth) {
  return {
    active_primary_shards: 1,
    active_shards: 1,
    relocating_shards: 0,
    initializing_shards: 0,
    unassigned_shards: index.replicas,
    unassigned_primary_shards: 0,
  };
}

function indexBody(index: IndexHealth, level: Level) {
  const counts = shardCounts(index);
  const { active_primary_shards: primaryActive, ...shard } = counts;
  return {
    status: index.status,
    number_of_shards: 1,
    number_of_replicas: index.replicas,
    ...counts,
    ...(level === 'shards'
      ? { shards: { '0': { status: index.status, primary_active: primaryActive === 1, ...shard } } }
      : {}),
  };
}

function healthBody(clusterName: string, health: ClusterHealth, level: Level) {
  const unassigned = health.indices.reduce((n, i) => n + i.replicas, 0);
  return {
    cluster_name: clusterName,
    status: health.status,
    timed_out: health.timedOut,
    number_of_nodes: 1,
    number_of_data_nodes: 1,
    active_primary_shards: health.indices.length,
    active_shards: health.indices.length,
    relocating_shards: 0,
    initializing_shards: 0,
    unassigned_shards: unassigned,
    unassigned_primary_shards: 0,
    delayed_unassigned_shards: 0,
    number_of_pending_tasks: 0,
    number_of_in_flight_fetch: 0,
    task_max_waiting_in_queue_millis: 0,
    active_shards_percent_as_number: javaDouble(health.activePercent),
    ...(level === 'cluster'
      ? {}
      : { indices: Object.fromEntries(health.indices.map((i) => [i.name, indexBody(i, level)])) }),
  };
}

/** GET /_cluster/health[/<index>] (ES "Cluster health API"). */
export function clusterHealthRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  const health = async (req: Request, res: Response) => {
    const level = parseLevel(req.query.level);
    const waitStatus = stringParam(req.query.wait_for_status);
    const wait: HealthWait = {
      ...(waitStatus === undefined || waitStatus === '' ? {} : { status: parseHealthStatus(waitStatus) }),
      activeShards: parseActiveShards(req.query.wait_for_active_shards),
      nodes: parseNodes(req.query.wait_for_nodes),
    };
    // Accepted and always true here: one node never relocates or initialises shards.
    parseBooleanParam(req.query.wait_for_no_relocating_shards, 'wait_for_no_relocating_shards', false);
    parseBooleanParam(req.query.wait_for_no_initializing_shards, 'wait_for_no_initializing_shards', false);
    parseBooleanParam(req.query.local, 'local', false);
    parseTimeParam(req.query.master_timeout, 'master_timeout', 30_000);
    const ok200 = parseBooleanParam(
      req.query.return_200_for_cluster_health_timeout,
      'return_200_for_cluster_health_timeout',
      false,
    );
    const index = req.params.index as string | undefined;
    const result = await clusterHealth(deps.pool, {
      ...(index === undefined || index === '_all' ? {} : { expression: index }),
      wait,
      timeoutMs: parseTimeParam(req.query.timeout, 'timeout', 30_000),
      signal: clientGoneSignal(res),
    });
    // ClusterHealthResponse#status: 408 when the wait timed out.
    res
      .status(result.timedOut && !ok200 ? 408 : 200)
      .json(healthBody(deps.config.CLUSTER_NAME, result, level));
  };
  const params = checkParams(ROUTE_PARAMS.clusterHealth);
  route('GET', '/_cluster/health', 'search.read', 'cluster:monitor/health', params, health);
  route('GET', '/_cluster/health/:index', 'search.read', 'cluster:monitor/health', params, health);
  return router;
}
