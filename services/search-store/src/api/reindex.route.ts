import { type Router } from 'express';
import { EsError, isEsError } from '@acme/common';
import { bodyObject, type JsonBodyLocals } from '../http/read-body';
import { locateJsonPath } from '../http/locate-json-path';
import { reindex, type ReindexOutcome } from '../write/reindex';
import { parseReindexRequest } from '../write/reindex-request';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';
import { parseBooleanParam, stringParam } from '../http/query-params';
import type { TaskManager } from '../tasks/task-manager';

/**
 * POST /_reindex (ES "Reindex API"): the BulkByScrollResponse body; the status of the first failure
 * (409 for a create conflict) when there are failures, as Elasticsearch answers.
 */
export function reindexRouter(deps: StoreDeps, tasks: TaskManager): Router {
  const { router, route } = scopedRouter();
  route(
    'POST',
    '/_reindex',
    'search.admin',
    'indices:data/write/reindex',
    checkParams(ROUTE_PARAMS.reindex),
    async (req, res) => {
      const started = Date.now();
      const text = (res.locals as JsonBodyLocals).rawBody;
      // RestRequest#contentOrSourceParamParser: the reindex API has no meaning without a body.
      if (req.body === undefined) {
        throw new EsError('parse_exception', 'request body or source parameter is required');
      }
      const request = parseReindexRequest(
        bodyObject(req),
        {
          maxDocs: stringParam(req.query.max_docs),
          requireAlias: parseBooleanParam(req.query.require_alias, 'require_alias', false),
        },
        (path) => (text === undefined ? undefined : locateJsonPath(text, path)),
      );
      if (!parseBooleanParam(req.query.wait_for_completion, 'wait_for_completion', true)) {
        // One statement inside Postgres: a stored task, not cancellable (ES's reindex is, between batches).
        const task = await tasks.start({
          action: 'indices:data/write/reindex',
          description: `reindex from [${request.sourceIndex}] to [${request.destIndex}]`,
          cancellable: false,
          storeResult: true,
          status: {},
        });
        reindex(deps, request)
          .then(
            (outcome) => {
              const {
                took: _took,
                timed_out: _out,
                failures: _failures,
                ...status
              } = renderReindex(outcome, 0).body;
              return task.finish(status, renderReindex(outcome, Date.now() - started).body);
            },
            (error: unknown) =>
              task.fail(
                {},
                isEsError(error) ? error.toBody().error : { type: 'exception', reason: 'reindex failed' },
              ),
          )
          .catch(() => undefined);
        res.json({ task: task.id });
        return;
      }
      const { status, body } = renderReindex(await reindex(deps, request), Date.now() - started);
      res.status(status).json(body);
    },
  );
  return router;
}

/** ES BulkByScrollResponse for reindex; the status of the first failure when there are failures. */
function renderReindex(
  outcome: ReindexOutcome,
  took: number,
): { status: number; body: Record<string, unknown> } {
  const failures = outcome.failures.map((f) => ({
    index: f.index,
    id: f.id,
    cause: f.error.toCause(),
    status: f.error.status,
  }));
  return {
    status: failures[0]?.status ?? 200,
    body: {
      took,
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
    },
  };
}
