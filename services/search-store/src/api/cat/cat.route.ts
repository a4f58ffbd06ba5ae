import { statfs } from 'node:fs/promises';
import { indexHealthOf, replicasOf } from '../../catalog/index-settings';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { type Router, type Request, type Response } from 'express';
import { ES_VERSION } from '../../catalog/cluster-info';
import { getIndexStats } from '../../catalog/index-stats';
import { findNodeId } from '../../catalog/node-info';
import { isTruthyParam } from '../../http/query-params';
import { CLOSED_ALLOWED, OPEN_AND_CLOSED, parseExpandWildcards } from '../../catalog/index-expression';
import type { StoreDeps } from '../store-deps';
import { sendCatTable, type CatColumn, type CatRow } from './render-table';
import { checkParams } from '../../http/check-params';
import { ROUTE_PARAMS } from '../route-params';
import { scopedRouter } from '../../http/scoped-router';

/** cat.indices columns (ES RestIndicesAction), defaults first. */
const INDEX_COLUMNS: CatColumn[] = [
  { name: 'health', aliases: ['h'], byDefault: true },
  { name: 'status', aliases: ['s'], byDefault: true },
  { name: 'index', aliases: ['i', 'idx'], byDefault: true },
  { name: 'uuid', aliases: ['id'], byDefault: true },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], right: true, byDefault: true },
  { name: 'rep', aliases: ['r', 'shards.replica', 'shardsReplica'], right: true, byDefault: true },
  { name: 'docs.count', aliases: ['dc', 'docsCount'], right: true, byDefault: true },
  { name: 'docs.deleted', aliases: ['dd', 'docsDeleted'], right: true, byDefault: true },
  { name: 'store.size', aliases: ['ss', 'storeSize'], right: true, byDefault: true, bytes: true },
  { name: 'pri.store.size', aliases: [], right: true, byDefault: true, bytes: true },
  { name: 'dataset.size', aliases: [], right: true, byDefault: true, bytes: true },
  { name: 'creation.date', aliases: ['cd'], right: true },
  { name: 'creation.date.string', aliases: ['cds'], right: true },
];

/** cat.nodes columns (ES RestNodesAction) we can report truthfully for this process and host. */
const NODE_COLUMNS: CatColumn[] = [
  { name: 'id', aliases: ['nodeId'] },
  { name: 'pid', aliases: ['p'], right: true },
  { name: 'ip', aliases: ['i'], byDefault: true },
  { name: 'port', aliases: ['po'], right: true },
  { name: 'version', aliases: ['v'] },
  { name: 'heap.current', aliases: ['hc', 'heapCurrent'], right: true, bytes: true },
  { name: 'heap.percent', aliases: ['hp', 'heapPercent'], right: true, byDefault: true },
  { name: 'heap.max', aliases: ['hm', 'heapMax'], right: true, bytes: true },
  { name: 'ram.current', aliases: ['rc', 'ramCurrent'], right: true, bytes: true },
  { name: 'ram.percent', aliases: ['rp', 'ramPercent'], right: true, byDefault: true },
  { name: 'ram.max', aliases: ['rm', 'ramMax'], right: true, bytes: true },
  { name: 'disk.total', aliases: ['dt', 'diskTotal'], right: true, bytes: true },
  { name: 'disk.used', aliases: ['du', 'diskUsed'], right: true, bytes: true },
  { name: 'disk.avail', aliases: ['d', 'da', 'disk', 'diskAvail'], right: true, bytes: true },
  { name: 'disk.used_percent', aliases: ['dup', 'diskUsedPercent'], right: true },
  { name: 'cpu', aliases: [], right: true, byDefault: true },
  { name: 'load_1m', aliases: ['l'], right: true, byDefault: true },
  { name: 'load_5m', aliases: [], right: true, byDefault: true },
  { name: 'load_15m', aliases: [], right: true, byDefault: true },
  { name: 'uptime', aliases: ['u'], right: true },
  { name: 'node.role', aliases: ['r', 'role', 'nodeRole'], byDefault: true },
  { name: 'master', aliases: ['m'], byDefault: true },
  { name: 'name', aliases: ['n'], byDefault: true },
];

/** GET /_cat/indices[/<index>] and GET /_cat/nodes (ES "Compact and aligned text (CAT) APIs"). */
export function catRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const catIndices = async (req: Request, res: Response) => {
    // RestIndicesAction: wildcards reach closed indices too, shown `close` without figures.
    const stats = await getIndexStats(deps.pool, (req.params.index as string | undefined) ?? '_all', {
      ...CLOSED_ALLOWED,
      expandWildcards: parseExpandWildcards(req.query.expand_wildcards, OPEN_AND_CLOSED),
    });
    const rows: CatRow[] = stats.map(({ index, docsCount, storeSize }) => {
      const replicas = replicasOf(index.settings);
      const size = index.closed ? null : storeSize;
      return {
        health: indexHealthOf(index.settings),
        status: index.closed ? 'close' : 'open',
        index: index.name,
        uuid: index.uuid,
        pri: 1,
        rep: replicas,
        'docs.count': index.closed ? null : docsCount,
        'docs.deleted': index.closed ? null : 0,
        'store.size': size,
        'pri.store.size': size,
        'dataset.size': size,
        'creation.date': index.createdAt.getTime(),
        'creation.date.string': index.createdAt.toISOString(),
      };
    });
    sendCatTable(req, res, INDEX_COLUMNS, rows);
  };
  const indicesParams = checkParams(ROUTE_PARAMS.catIndices);
  route('GET', '/_cat/indices', 'search.read', 'indices:monitor/stats', indicesParams, catIndices);
  route('GET', '/_cat/indices/:index', 'search.read', 'indices:monitor/stats', indicesParams, catIndices);

  route(
    'GET',
    '/_cat/nodes',
    'search.read',
    'cluster:monitor/nodes/stats',
    checkParams(ROUTE_PARAMS.catNodes),
    async (req, res) => {
      const fs = await statfs(deps.config.DATA_PATH);
      const nodeId = await findNodeId(deps.pool, deps.config.NODE_NAME);
      const diskTotal = fs.blocks * fs.bsize;
      const diskAvail = fs.bavail * fs.bsize;
      const diskUsed = diskTotal - diskAvail;
      const memory = process.memoryUsage();
      const ramUsed = totalmem() - freemem();
      const [l1 = 0, l5 = 0, l15 = 0] = loadavg();
      const row: CatRow = {
        // The id `_nodes` reports; its first four characters unless `full_id` (RestNodesAction).
        id: isTruthyParam(req.query.full_id) ? nodeId : nodeId.slice(0, 4),
        pid: process.pid,
        ip: '127.0.0.1',
        port: deps.config.PORT,
        version: ES_VERSION.number,
        'heap.current': memory.heapUsed,
        'heap.percent': Math.round((100 * memory.heapUsed) / memory.heapTotal),
        'heap.max': memory.heapTotal,
        'ram.current': ramUsed,
        'ram.percent': Math.round((100 * ramUsed) / totalmem()),
        'ram.max': totalmem(),
        'disk.total': diskTotal,
        'disk.used': diskUsed,
        'disk.avail': diskAvail,
        'disk.used_percent': diskTotal === 0 ? '0.00' : ((100 * diskUsed) / diskTotal).toFixed(2),
        cpu: Math.min(100, Math.round((100 * l1) / Math.max(1, cpus().length))),
        load_1m: l1.toFixed(2),
        load_5m: l5.toFixed(2),
        load_15m: l15.toFixed(2),
        uptime: `${Math.floor(process.uptime())}s`,
        'node.role': 'dim',
        master: '*',
        name: deps.config.NODE_NAME,
      };
      sendCatTable(req, res, NODE_COLUMNS, [row]);
    },
  );
  return router;
}
