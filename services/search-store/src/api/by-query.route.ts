import type { Request, Router } from 'express';
import { isEsError } from '@acme/common';
import { checkParams } from '../http/check-params';
import { parseBooleanParam } from '../http/query-params';
import { bodyObject } from '../http/read-body';
import { scopedRouter } from '../http/scoped-router';
import type { TaskManager } from '../tasks/task-manager';
import { parseByQueryRequest, type ByQueryRequest } from '../write/by-query/by-query-request';
import { runByQuery, type ByQueryCounts, type ByQueryOutcome } from '../write/by-query/run-by-query';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

const API = {
  delete: {
    path: '/:index/_delete_by_query',
    action: 'indices:data/write/delete/byquery',
    name: 'delete-by-query',
  },
  update: {
    path: '/:index/_update_by_query',
    action: 'indices:data/write/update/byquery',
    name: 'update-by-query',
  },
} as const;

/**
 * POST /<index>/_delete_by_query and /<index>/_update_by_query (ES "Delete by query API", "Update by
 * query API"). Each runs as a task (visible in GET /_tasks, cancellable between batches); with
 * `wait_for_completion=false` the answer is `{task}` and the result is stored for GET /_tasks/<id>.
 * The status is the highest of the failures' (409 for a version conflict), else 200.
 */
export function byQueryRouter(deps: StoreDeps, tasks: TaskManager): Router {
  const { router, route } = scopedRouter();
  for (const kind of ['delete', 'update'] as const) {
    const api = API[kind];
    route(
      'POST',
      api.path,
      'search.write',
      api.action,
      checkParams(kind === 'delete' ? ROUTE_PARAMS.deleteByQuery : ROUTE_PARAMS.updateByQuery),
      async (req, res) => {
        const started = Date.now();
        const request = parseByQueryRequest(
          kind,
          req.params.index,
          req.query as Record<string, unknown>,
          req.body === undefined ? undefined : bodyObject(req as Request),
        );
        const wait = parseBooleanParam(req.query.wait_for_completion, 'wait_for_completion', true);
        const task = await tasks.start({
          action: api.action,
          description: describe(api.name, request),
          cancellable: true,
          storeResult: !wait,
          status: renderStatus(emptyCounts(request)),
        });
        const running = runByQuery(deps, request, (counts) => task.progress(renderStatus(counts)));
        const done = running.then(
          async (outcome) => {
            await task.finish(renderStatus(outcome), renderResponse(outcome, Date.now() - started, 'all'));
            return outcome;
          },
          async (error: unknown) => {
            const cause = isEsError(error)
              ? error.toBody().error
              : { type: 'exception', reason: 'by-query failed' };
            await task.fail(renderStatus(emptyCounts(request)), cause).catch(() => undefined);
            throw error;
          },
        );
        if (!wait) {
          done.catch(() => undefined); // the error is stored with the task
          res.json({ task: task.id });
          return;
        }
        const outcome = await done;
        const status = Math.max(200, ...outcome.failures.map((f) => f.error.status));
        res.status(status).json(renderResponse(outcome, Date.now() - started, kind));
      },
    );
  }
  return router;
}

/** ES AbstractBulkByScrollRequest#getDescription: "delete-by-query [a, b]" (+ the script). */
function describe(name: string, request: ByQueryRequest): string {
  const indices = `[${request.indices.split(',').join(', ')}]`;
  if (!request.script) return `${name} ${indices}`;
  return (
    `${name} ${indices} updated with Script{type=inline, lang='painless', idOrCode='${request.script.source}', ` +
    `options={}, params=${JSON.stringify(request.script.params)}}`
  );
}

function emptyCounts(request: ByQueryRequest): ByQueryCounts {
  return {
    total: 0,
    updated: 0,
    deleted: 0,
    batches: 0,
    versionConflicts: 0,
    noops: 0,
    throttledMillis: 0,
    requestsPerSecond: Number.isFinite(request.requestsPerSecond) ? request.requestsPerSecond : -1,
  };
}

/**
 * ES BulkByScrollTask.Status#innerXContent: `updated` and `created` only where the API reports them
 * (delete_by_query neither, update_by_query `updated`; a task's stored status and response both).
 */
function renderCounts(counts: ByQueryCounts, fields: 'delete' | 'update' | 'all'): Record<string, unknown> {
  const body: Record<string, unknown> = { total: counts.total };
  if (fields !== 'delete') body.updated = counts.updated;
  if (fields === 'all') body.created = 0;
  body.deleted = counts.deleted;
  body.batches = counts.batches;
  body.version_conflicts = counts.versionConflicts;
  body.noops = counts.noops;
  body.retries = { bulk: 0, search: 0 };
  body.throttled_millis = counts.throttledMillis;
  body.requests_per_second = counts.requestsPerSecond;
  if (counts.canceled !== undefined) body.canceled = counts.canceled;
  body.throttled_until_millis = 0;
  return body;
}

function renderStatus(counts: ByQueryCounts): Record<string, unknown> {
  return renderCounts(counts, 'all');
}

/** ES BulkByScrollResponse#toXContent: took, timed_out, the counts, failures. */
function renderResponse(
  outcome: ByQueryOutcome,
  took: number,
  fields: 'delete' | 'update' | 'all',
): Record<string, unknown> {
  return {
    took,
    timed_out: false,
    ...renderCounts(outcome, fields),
    failures: outcome.failures.map((f) => ({
      index: f.index,
      id: f.id,
      cause: f.error.toCause(),
      status: f.error.status,
    })),
  };
}
