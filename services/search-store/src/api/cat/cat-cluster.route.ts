import { type Router, type Request, type Response } from 'express';
import { clusterHealth } from '../../catalog/cluster-health';
import { countIndexedDocuments } from '../../catalog/count-indexed-documents';
import { listAliases } from '../../catalog/list-aliases';
import { checkParams } from '../../http/check-params';
import { parseBooleanParam } from '../../http/query-params';
import { scopedRouter } from '../../http/scoped-router';
import { ROUTE_PARAMS } from '../route-params';
import type { StoreDeps } from '../store-deps';
import { sendCatTable, type CatColumn, type CatRow } from './render-table';

/** The two time columns cat health and cat count lead with (ES AbstractCatAction), hidden by `ts=false`. */
const TIME_COLUMNS: CatColumn[] = [
  { name: 'epoch', aliases: ['t', 'time'], byDefault: true },
  { name: 'timestamp', aliases: ['ts', 'hms', 'hhmmss'], byDefault: true },
];

/** cat.health columns (ES RestHealthAction). */
const HEALTH_COLUMNS: CatColumn[] = [
  ...TIME_COLUMNS,
  { name: 'cluster', aliases: ['cl'], byDefault: true },
  { name: 'status', aliases: ['st'], byDefault: true },
  { name: 'node.total', aliases: ['nt', 'nodeTotal'], right: true, byDefault: true },
  { name: 'node.data', aliases: ['nd', 'nodeData'], right: true, byDefault: true },
  { name: 'shards', aliases: ['t', 'sh', 'shards.total', 'shardsTotal'], right: true, byDefault: true },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], right: true, byDefault: true },
  { name: 'relo', aliases: ['r', 'shards.relocating', 'shardsRelocating'], right: true, byDefault: true },
  { name: 'init', aliases: ['i', 'shards.initializing', 'shardsInitializing'], right: true, byDefault: true },
  { name: 'unassign', aliases: ['u', 'shards.unassigned', 'shardsUnassigned'], right: true, byDefault: true },
  {
    name: 'unassign.pri',
    aliases: ['up', 'shards.unassigned.primary', 'shardsUnassignedPrimary'],
    right: true,
    byDefault: true,
  },
  { name: 'pending_tasks', aliases: ['pt', 'pendingTasks'], right: true, byDefault: true },
  { name: 'max_task_wait_time', aliases: ['mtwt', 'maxTaskWaitTime'], right: true, byDefault: true },
  { name: 'active_shards_percent', aliases: ['asp', 'activeShardsPercent'], right: true, byDefault: true },
];

/** cat.count columns (ES RestCountAction). */
const COUNT_COLUMNS: CatColumn[] = [
  ...TIME_COLUMNS,
  { name: 'count', aliases: ['dc', 'docs.count', 'docsCount'], byDefault: true },
];

/** cat.aliases columns (ES RestAliasAction). */
const ALIAS_COLUMNS: CatColumn[] = [
  { name: 'alias', aliases: ['a'], byDefault: true },
  { name: 'index', aliases: ['i', 'idx'], byDefault: true },
  { name: 'filter', aliases: ['f', 'fi'], byDefault: true },
  { name: 'routing.index', aliases: ['ri', 'routingIndex'], byDefault: true },
  { name: 'routing.search', aliases: ['rs', 'routingSearch'], byDefault: true },
  { name: 'is_write_index', aliases: ['w', 'isWriteIndex'], byDefault: true },
];

/** `ts=false` drops the time columns from the default set (RestTable#checkOutputTimestamp). */
function withTime(req: Request, columns: CatColumn[]): CatColumn[] {
  if (parseBooleanParam(req.query.ts, 'ts', true)) return columns;
  return columns.map((c) => (TIME_COLUMNS.includes(c) ? { ...c, byDefault: false } : c));
}

/** Seconds since the epoch and UTC `HH:mm:ss`, the row's time stamp. */
function timeCells(now: Date): CatRow {
  return { epoch: Math.floor(now.getTime() / 1000), timestamp: now.toISOString().slice(11, 19) };
}

/** A Java `%1.1f%%`: one decimal, half up. */
function percent(value: number): string {
  return `${value.toFixed(1)}%`;
}

/** GET /_cat/health, /_cat/count[/<index>], /_cat/aliases[/<name>] (ES "Compact and aligned text (CAT) APIs"). */
export function catClusterRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  route(
    'GET',
    '/_cat/health',
    'search.read',
    'cluster:monitor/health',
    checkParams(ROUTE_PARAMS.catHealth),
    async (req, res) => {
      const health = await clusterHealth(deps.pool, { wait: {}, timeoutMs: 0 });
      const shards = health.indices.length;
      const row: CatRow = {
        ...timeCells(new Date()),
        cluster: deps.config.CLUSTER_NAME,
        status: health.status,
        'node.total': 1,
        'node.data': 1,
        shards,
        pri: shards,
        relo: 0,
        init: 0,
        unassign: health.indices.reduce((n, i) => n + i.replicas, 0),
        'unassign.pri': 0,
        pending_tasks: 0,
        // RestHealthAction prints `-` when no task waits.
        max_task_wait_time: '-',
        active_shards_percent: percent(health.activePercent),
      };
      sendCatTable(req, res, withTime(req, HEALTH_COLUMNS), [row]);
    },
  );

  const count = async (req: Request, res: Response) => {
    const total = await countIndexedDocuments(deps.pool, (req.params.index as string | undefined) ?? '_all');
    sendCatTable(req, res, withTime(req, COUNT_COLUMNS), [{ ...timeCells(new Date()), count: total }]);
  };
  const countParams = checkParams(ROUTE_PARAMS.catCount);
  route('GET', '/_cat/count', 'search.read', 'indices:data/read/search', countParams, count);
  route('GET', '/_cat/count/:index', 'search.read', 'indices:data/read/search', countParams, count);

  const aliases = async (req: Request, res: Response) => {
    const name = req.params.name as string | undefined;
    const links = await listAliases(deps.pool, name === undefined ? undefined : name.split(','));
    const rows: CatRow[] = links.map((link) => ({
      alias: link.alias,
      index: link.indexName,
      filter: link.filter ? '*' : '-',
      'routing.index': link.indexRouting ?? '-',
      'routing.search': link.searchRouting ?? '-',
      is_write_index: link.isWriteIndex === null ? '-' : String(link.isWriteIndex),
    }));
    sendCatTable(req, res, ALIAS_COLUMNS, rows);
  };
  const aliasParams = checkParams(ROUTE_PARAMS.catAliases);
  route('GET', '/_cat/aliases', 'search.read', 'indices:admin/aliases/get', aliasParams, aliases);
  route('GET', '/_cat/aliases/:name', 'search.read', 'indices:admin/aliases/get', aliasParams, aliases);
  return router;
}
