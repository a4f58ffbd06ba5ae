import { type Router, type Request, type Response } from 'express';
import { broadcastShards } from '../catalog/index-settings';
import { EsError } from '@acme/common';
import { forceMergeIndices, maintainIndices } from '../catalog/maintain-indices';
import { checkParams } from '../http/check-params';
import { parseBooleanParam, parseLongParam } from '../http/query-params';
import { scopedRouter } from '../http/scoped-router';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

/** The broadcast `_shards` of flush and force merge: every copy of each index, the primaries successful. */
async function acknowledge(deps: StoreDeps, req: Request, res: Response): Promise<void> {
  const indices = await maintainIndices(deps.pool, (req.params.index as string | undefined) ?? '_all');
  res.json({ _shards: broadcastShards(indices) });
}

/** POST|GET /[<index>/]_flush (a valid no-op) and POST /[<index>/]_forcemerge (graph compaction): catalog/maintain-indices.ts. */
export function maintenanceRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const flush = async (req: Request, res: Response) => {
    parseBooleanParam(req.query.force, 'force', false);
    parseBooleanParam(req.query.wait_if_ongoing, 'wait_if_ongoing', true);
    await acknowledge(deps, req, res);
  };
  const flushParams = checkParams(ROUTE_PARAMS.flush);
  route(['POST', 'GET'], '/_flush', 'search.write', 'indices:admin/flush', flushParams, flush);
  route(['POST', 'GET'], '/:index/_flush', 'search.write', 'indices:admin/flush', flushParams, flush);

  const forceMerge = async (req: Request, res: Response) => {
    const maxSegments = parseLongParam(req.query.max_num_segments, 'max_num_segments');
    const expunge = parseBooleanParam(req.query.only_expunge_deletes, 'only_expunge_deletes', false);
    parseBooleanParam(req.query.flush, 'flush', true);
    parseBooleanParam(req.query.wait_for_completion, 'wait_for_completion', true);
    // ForceMergeRequest#validate.
    if (expunge && maxSegments !== undefined && maxSegments !== -1) {
      throw new EsError(
        'action_request_validation_exception',
        'Validation Failed: 1: cannot set only_expunge_deletes and max_num_segments at the same time;',
      );
    }
    const indices = await forceMergeIndices(
      deps.pool,
      deps.indexWriter,
      (req.params.index as string | undefined) ?? '_all',
      maxSegments === undefined || maxSegments === -1 ? undefined : maxSegments,
    );
    res.json({ _shards: broadcastShards(indices) });
  };
  const mergeParams = checkParams(ROUTE_PARAMS.forceMerge);
  route('POST', '/_forcemerge', 'search.write', 'indices:admin/forcemerge', mergeParams, forceMerge);
  route('POST', '/:index/_forcemerge', 'search.write', 'indices:admin/forcemerge', mergeParams, forceMerge);
  return router;
}
