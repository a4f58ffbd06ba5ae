import { newDictionary } from '@acme/common';
import { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  findNodeId,
  NODE_INFO_METRICS,
  nodeInfo,
  selectsNode,
  type NodeInfoMetric,
} from '../catalog/node-info';
import { checkParams } from '../http/check-params';
import { isTruthyParam } from '../http/query-params';
import { scopedRouter } from '../http/scoped-router';
import { parseTimeParam } from '../http/time-param';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

/** Other nodes APIs share the prefix (stats, usage, hot threads): not ours, so not answered as info. */
const OTHER_NODE_APIS = new Set(['stats', 'usage', 'hot_threads', 'reload_secure_settings', 'shutdown']);

function isMetric(name: string): name is NodeInfoMetric {
  return (NODE_INFO_METRICS as readonly string[]).includes(name);
}

/** GET /_nodes[/{node_id}][/{metric}] (ES "Nodes info API"): the one node, as `/` and `_cat/nodes` show it. */
export function nodesInfoRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const skipOtherApis = (req: Request, _res: Response, next: NextFunction) => {
    const { nodeId, metrics } = req.params as { nodeId?: string; metrics?: string };
    next(OTHER_NODE_APIS.has(nodeId ?? '') || OTHER_NODE_APIS.has(metrics ?? '') ? 'route' : undefined);
  };

  const nodesInfo = async (req: Request, res: Response) => {
    parseTimeParam(req.query.timeout, 'timeout', 30_000);
    const { nodeId, metrics } = req.params as { nodeId?: string; metrics?: string };
    let nodeSpecs = ['_all'];
    let metricNames = ['_all'];
    if (nodeId !== undefined && metrics === undefined) {
      // RestNodesInfoAction: /_nodes/os is metrics when every part names a metric, node ids otherwise.
      const parts = nodeId.split(',').filter((p) => p !== '');
      if (parts.length > 0 && parts.every(isMetric)) metricNames = parts;
      else nodeSpecs = parts;
    } else {
      if (nodeId !== undefined) nodeSpecs = nodeId.split(',').filter((p) => p !== '');
      if (metrics !== undefined) metricNames = metrics.split(',');
    }
    // `_all` alone is every section; unknown metric names are disregarded, as ES does.
    const selected = new Set<NodeInfoMetric>(
      metricNames.length === 1 && metricNames[0] === '_all'
        ? NODE_INFO_METRICS
        : metricNames.filter(isMetric),
    );
    const name = deps.config.NODE_NAME;
    const id = await findNodeId(deps.pool, name);
    const nodes = newDictionary<unknown>(); // keyed by node id
    if (selectsNode(nodeSpecs.length === 0 ? ['_all'] : nodeSpecs, { id, name })) {
      nodes[id] = nodeInfo(
        {
          clusterName: deps.config.CLUSTER_NAME,
          nodeName: name,
          httpPort: deps.config.PORT,
          dataPath: deps.config.DATA_PATH,
          maxContentLength: deps.config.MAX_REQUEST_BYTES,
        },
        selected,
        isTruthyParam(req.query.flat_settings),
      );
    }
    const count = Object.keys(nodes).length;
    res.json({
      _nodes: { total: count, successful: count, failed: 0 },
      cluster_name: deps.config.CLUSTER_NAME,
      nodes,
    });
  };

  const params = checkParams(ROUTE_PARAMS.nodesInfo);
  const action = 'cluster:monitor/nodes/info';
  route('GET', '/_nodes', 'search.read', action, params, nodesInfo);
  route('GET', '/_nodes/:nodeId', 'search.read', action, skipOtherApis, params, nodesInfo);
  route('GET', '/_nodes/:nodeId/:metrics', 'search.read', action, skipOtherApis, params, nodesInfo);
  route('GET', '/_nodes/:nodeId/info/:metrics', 'search.read', action, skipOtherApis, params, nodesInfo);
  return router;
}
