import { type Router, type Request } from 'express';
import { EsError, newDictionary } from '@acme/common';
import { closeIndices } from '../catalog/close-index';
import { parseExpandWildcards, type ResolveOptions, type WildcardStates } from '../catalog/index-expression';
import { replicasOf } from '../catalog/index-settings';
import { openIndices } from '../catalog/open-index';
import { checkParams } from '../http/check-params';
import { parseBooleanParam, stringParam } from '../http/query-params';
import { scopedRouter } from '../http/scoped-router';
import { parseTimeParam } from '../http/time-param';
import type { IndexRecord } from '../storage/indices.repo';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

/** The index options of both APIs; `wildcards` is the API's default `expand_wildcards`. */
function resolveOptions(req: Request, wildcards: WildcardStates): ResolveOptions {
  parseTimeParam(req.query.timeout, 'timeout', 30_000);
  parseTimeParam(req.query.master_timeout, 'master_timeout', 30_000);
  return {
    ignoreUnavailable: parseBooleanParam(req.query.ignore_unavailable, 'ignore_unavailable', false),
    allowNoIndices: parseBooleanParam(req.query.allow_no_indices, 'allow_no_indices', true),
    expandWildcards: parseExpandWildcards(req.query.expand_wildcards, wildcards),
  };
}

/**
 * `wait_for_active_shards` (ES ActiveShardCount.parseString; `index-setting` is the 8.x default), read
 * before anything changes: a test of whether enough copies of each index are active. One node holds
 * only the primary, so more than one copy is never reached: the answer is `shards_acknowledged: false`
 * at once, where ES would wait for `timeout` first and answer the same.
 */
function parseActiveShards(value: unknown): (indices: IndexRecord[]) => boolean {
  const text = stringParam(value);
  let wanted: (index: IndexRecord) => number;
  if (text === undefined || text === '' || text === 'index-setting') {
    wanted = (index) => {
      const setting = index.settings['index.write.wait_for_active_shards'] ?? '1';
      return setting === 'all' ? 1 + replicasOf(index.settings) : Number(setting);
    };
  } else if (text === 'all') {
    wanted = (index) => 1 + replicasOf(index.settings);
  } else if (/^-?\d{1,9}$/.test(text)) {
    const count = Number(text);
    if (count < 0) throw new EsError('illegal_argument_exception', 'shard count cannot be a negative value');
    wanted = () => count;
  } else {
    throw new EsError('illegal_argument_exception', `cannot parse ActiveShardCount[${text}]`);
  }
  return (indices) => indices.every((index) => wanted(index) <= 1);
}

/** POST /<index>/_close and POST /<index>/_open (ES "Close index API", "Open index API"). */
export function openCloseRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  route(
    'POST',
    '/:index/_close',
    'search.admin',
    'indices:admin/close',
    checkParams(ROUTE_PARAMS.closeIndex),
    async (req, res) => {
      // CloseIndexRequest: wildcards expand to open indices.
      const options = resolveOptions(req, { open: true, closed: false, hidden: false });
      const activeShards = parseActiveShards(req.query.wait_for_active_shards);
      const { closed } = await closeIndices(deps.pool, req.params.index as string, options);
      const reached = activeShards(closed);
      const indices = newDictionary<unknown>(); // keyed by index name
      for (const index of closed) indices[index.name] = { closed: true };
      // CloseIndexResponse: nothing closed is `shards_acknowledged: false` with no indices.
      res.json({ acknowledged: true, shards_acknowledged: closed.length > 0 && reached, indices });
    },
  );

  route(
    'POST',
    '/:index/_open',
    'search.admin',
    'indices:admin/open',
    checkParams(ROUTE_PARAMS.openIndex),
    async (req, res) => {
      // OpenIndexRequest: wildcards expand to closed indices.
      const options = resolveOptions(req, { open: false, closed: true, hidden: false });
      const activeShards = parseActiveShards(req.query.wait_for_active_shards);
      const opened = await openIndices(deps.pool, req.params.index as string, options);
      res.json({ acknowledged: true, shards_acknowledged: activeShards(opened) });
    },
  );

  return router;
}
