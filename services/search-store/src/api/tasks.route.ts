import type { Router } from 'express';
import { EsError } from '@acme/common';
import { checkParams } from '../http/check-params';
import { parseBooleanParam, stringParam } from '../http/query-params';
import { scopedRouter } from '../http/scoped-router';
import { parseTimeParam } from '../http/time-param';
import type { TaskRecord } from '../storage/tasks.repo';
import { formatTaskId, parseTaskId } from '../tasks/task-id';
import { renderTaskInfo, renderTaskResult } from '../tasks/task-info';
import type { TaskManager } from '../tasks/task-manager';
import { simpleMatcher } from '../text/simple-match';
import { ROUTE_PARAMS } from './route-params';

/** ES TransportGetTaskAction's default wait for `wait_for_completion=true`. */
const DEFAULT_WAIT_MS = 30_000;
/** At most this many `actions` patterns (a comma list in the URL). */
const MAX_ACTION_PATTERNS = 64;

/**
 * The task management API (ES "Task management API") over the tasks every instance records in
 * Postgres: GET /_tasks/<id> (running or stored), GET /_tasks (running; `actions`, `detailed`,
 * `group_by`), POST /_tasks/<id>/_cancel and POST /_tasks/_cancel. Reading needs `search.read`;
 * cancelling stops a write, so it needs `search.write`.
 */
export function tasksRouter(tasks: TaskManager): Router {
  const { router, route } = scopedRouter();

  route(
    'GET',
    '/_tasks',
    'search.read',
    'cluster:monitor/tasks/lists',
    checkParams(ROUTE_PARAMS.listTasks),
    async (req, res) => {
      const detailed = parseBooleanParam(req.query.detailed, 'detailed', false);
      const groupBy = parseGroupBy(stringParam(req.query.group_by));
      const matches = parseActions(stringParam(req.query.actions));
      const running = (await tasks.listRunning()).filter((task) => matches(task.action));
      res.json(renderList(tasks, running, detailed, groupBy));
    },
  );

  route(
    'GET',
    '/_tasks/:task_id',
    'search.read',
    'cluster:monitor/task/get',
    checkParams(ROUTE_PARAMS.getTask),
    async (req, res) => {
      const id = parseTaskId(req.params.task_id);
      const wait = parseBooleanParam(req.query.wait_for_completion, 'wait_for_completion', false);
      const waitMs = wait ? parseTimeParam(req.query.timeout, 'timeout', DEFAULT_WAIT_MS) : 0;
      const controller = new AbortController();
      res.once('close', () => controller.abort());
      res.json(renderTaskResult(await tasks.get(id, Math.max(0, waitMs), controller.signal)));
    },
  );

  route(
    'POST',
    '/_tasks/:task_id/_cancel',
    'search.write',
    'cluster:admin/tasks/cancel',
    checkParams(ROUTE_PARAMS.cancelTasks),
    async (req, res) => {
      const id = parseTaskId(req.params.task_id);
      const cancelled = await tasks.cancel(id);
      if (cancelled) {
        res.json(renderList(tasks, [cancelled], false, 'nodes'));
        return;
      }
      // ES TransportTasksAction: a task that is not running is a failure of the node asked.
      res.json({
        node_failures: [
          {
            type: 'failed_node_exception',
            reason: `Failed node [${id.nodeId}]`,
            node_id: id.nodeId,
            caused_by: {
              type: 'resource_not_found_exception',
              reason: `task [${formatTaskId(id)}] is not found`,
            },
          },
        ],
        nodes: {},
      });
    },
  );

  route(
    'POST',
    '/_tasks/_cancel',
    'search.write',
    'cluster:admin/tasks/cancel',
    checkParams(ROUTE_PARAMS.cancelTasks),
    async (req, res) => {
      const matches = parseActions(stringParam(req.query.actions));
      const cancelled: TaskRecord[] = [];
      for (const task of await tasks.listRunning()) {
        if (!task.cancellable || !matches(task.action)) continue;
        const now = await tasks.cancel({ nodeId: task.nodeId, number: task.taskNumber });
        if (now) cancelled.push(now);
      }
      res.json(renderList(tasks, cancelled, false, 'nodes'));
    },
  );

  return router;
}

type GroupBy = 'nodes' | 'parents' | 'none';

function parseGroupBy(value: string | undefined): GroupBy {
  if (value === undefined) return 'nodes';
  if (value === 'nodes' || value === 'parents' || value === 'none') return value;
  throw new EsError(
    'illegal_argument_exception',
    `No enum constant org.elasticsearch.rest.action.admin.cluster.RestListTasksAction.GroupBy.${value.toUpperCase()}`,
  );
}

/** `actions`: a comma list of wildcard patterns (ES Regex.simpleMatch), any of which may match. */
function parseActions(value: string | undefined): (action: string) => boolean {
  if (value === undefined || value === '') return () => true;
  const patterns = value.split(',').filter((p) => p !== '');
  if (patterns.length > MAX_ACTION_PATTERNS) {
    throw new EsError(
      'illegal_argument_exception',
      `at most ${MAX_ACTION_PATTERNS} [actions] patterns are accepted`,
    );
  }
  const matchers = patterns.map((p) => simpleMatcher(p));
  return (action) => matchers.some((m) => m(action));
}

/** ES ListTasksResponse: grouped by node (default), by parent (all top-level here), or a plain list. */
function renderList(
  tasks: TaskManager,
  list: TaskRecord[],
  detailed: boolean,
  groupBy: GroupBy,
): Record<string, unknown> {
  if (groupBy === 'none') return { tasks: list.map((task) => renderTaskInfo(task, detailed)) };
  if (groupBy === 'parents') {
    const byId: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const task of list)
      byId[formatTaskId({ nodeId: task.nodeId, number: task.taskNumber })] = renderTaskInfo(task, detailed);
    return { tasks: byId };
  }
  const nodes = new Map<string, Record<string, unknown>>();
  for (const task of list) {
    let node = nodes.get(task.nodeId);
    if (!node) {
      node = {
        name: task.nodeName,
        transport_address: '127.0.0.1:9300',
        host: '127.0.0.1',
        ip: '127.0.0.1:9300',
        roles: ['data', 'ingest', 'master'],
        tasks: {},
      };
      nodes.set(task.nodeId, node);
    }
    (node.tasks as Record<string, unknown>)[formatTaskId({ nodeId: task.nodeId, number: task.taskNumber })] =
      renderTaskInfo(task, detailed);
  }
  return { nodes: Object.fromEntries(nodes) };
}
