import { type Router } from 'express';
import { bodyObject } from '../http/read-body';
import { reindex } from '../write/reindex';
import { parseReindexRequest } from '../write/reindex-request';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/**
 * POST /_reindex (ES "Reindex API"): the BulkByScrollResponse body; the status of the first failure
 * (409 for a create conflict) when there are failures, as Elasticsearch answers.
 */
export function reindexRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  route(
    'POST',
    '/_reindex',
    'search.admin',
    'indices:data/write/reindex',
    checkParams(ROUTE_PARAMS.reindex),
    async (req, res) => {
      const started = Date.now();
      const outcome = await reindex(deps, parseReindexRequest(bodyObject(req)));
      const failures = outcome.failures.map((f) => ({
        index: f.index,
        id: f.id,
        cause: f.error.toCause(),
        status: f.error.status,
      }));
      res.status(failures[0]?.status ?? 200).json({
        took: Date.now() - started,
        timed_out: false,
        total: outcome.total,
        updated: outcome.updated,
        created: outcome.created,
        deleted: 0,
        batches: outcome.batches,
        version_conflicts: outcome.versionConflicts,
        noops: 0,
        retries: { bulk: 0, search: 0 },
        throttled_millis: 0,
        requests_per_second: -1,
        throttled_until_millis: 0,
        failures,
      });
    },
  );
  return router;
}
