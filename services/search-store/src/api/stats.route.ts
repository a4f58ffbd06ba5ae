import { type Router, type Request, type Response } from 'express';
import { broadcastShards, indexHealthOf } from '../catalog/index-settings';
import { EsError } from '@acme/common';
import { getIndexStats } from '../catalog/index-stats';
import { checkParams, unrecognizedMessage } from '../http/check-params';
import { stringParam } from '../http/query-params';
import { scopedRouter } from '../http/scoped-router';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

/** The metrics ES's RestIndicesStatsAction knows; we report `docs`, `store` and `shard_stats`. */
const KNOWN_METRICS = [
  '_all',
  'bulk',
  'completion',
  'dense_vector',
  'docs',
  'fielddata',
  'flush',
  'get',
  'indexing',
  'mappings',
  'merge',
  'query_cache',
  'recovery',
  'refresh',
  'request_cache',
  'search',
  'segments',
  'shard_stats',
  'sparse_vector',
  'store',
  'translog',
  'warmer',
];

function parseMetrics(req: Request): Set<string> {
  const text = req.params.metric as string | undefined;
  const asked = text === undefined ? ['_all'] : text.split(',');
  const unknown = asked.filter((m) => !KNOWN_METRICS.includes(m));
  if (unknown.length > 0) {
    const message = unrecognizedMessage(req.path, unknown, KNOWN_METRICS).replace(
      /unrecognized parameter/,
      'unrecognized metric',
    );
    throw new EsError('illegal_argument_exception', message);
  }
  return new Set(asked.includes('_all') ? KNOWN_METRICS : asked);
}

interface Totals {
  docs: number;
  size: number;
  shards: number;
}

function section(totals: Totals, metrics: Set<string>) {
  return {
    ...(metrics.has('docs')
      ? { docs: { count: totals.docs, deleted: 0, total_size_in_bytes: totals.size } }
      : {}),
    ...(metrics.has('shard_stats') ? { shard_stats: { total_count: totals.shards } } : {}),
    ...(metrics.has('store')
      ? {
          store: {
            size_in_bytes: totals.size,
            total_data_set_size_in_bytes: totals.size,
            reserved_in_bytes: 0,
          },
        }
      : {}),
  };
}

/** GET /_stats[/<metric>] and /<index>/_stats[/<metric>] (ES "Index stats API"). */
export function statsRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  const stats = async (req: Request, res: Response) => {
    const metrics = parseMetrics(req);
    const level = stringParam(req.query.level) ?? 'indices';
    if (!['cluster', 'indices', 'shards'].includes(level)) {
      throw new EsError(
        'illegal_argument_exception',
        `level parameter must be one of [cluster] or [indices] or [shards] but was [${level}]`,
      );
    }
    const all = await getIndexStats(deps.pool, (req.params.index as string | undefined) ?? '_all');
    // Only the active copies count: one primary per index; replicas stay unassigned on one node.
    const sum: Totals = { docs: 0, size: 0, shards: 0 };
    for (const s of all) {
      sum.docs += s.docsCount;
      sum.size += s.storeSize;
      sum.shards += 1;
    }
    const indices = Object.fromEntries(
      all.map((s) => {
        const own = section({ docs: s.docsCount, size: s.storeSize, shards: 1 }, metrics);
        const health = indexHealthOf(s.index.settings);
        return [s.index.name, { uuid: s.index.uuid, health, status: 'open', primaries: own, total: own }];
      }),
    );
    res.json({
      _shards: broadcastShards(all.map((s) => s.index)),
      _all: { primaries: section(sum, metrics), total: section(sum, metrics) },
      // level=shards shows the indices as level=indices does (no per-shard sections).
      ...(level === 'cluster' ? {} : { indices }),
    });
  };
  const params = checkParams(ROUTE_PARAMS.stats);
  route('GET', '/_stats', 'search.read', 'indices:monitor/stats', params, stats);
  route('GET', '/_stats/:metric', 'search.read', 'indices:monitor/stats', params, stats);
  route('GET', '/:index/_stats', 'search.read', 'indices:monitor/stats', params, stats);
  route('GET', '/:index/_stats/:metric', 'search.read', 'indices:monitor/stats', params, stats);
  return router;
}
