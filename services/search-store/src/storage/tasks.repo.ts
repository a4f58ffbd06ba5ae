import type { Queryable } from './queryable';

/** A row of `tasks` (migration 0012). */
export interface TaskRecord {
  taskNumber: number;
  nodeId: string;
  nodeName: string;
  action: string;
  description: string;
  startTimeMs: number;
  cancellable: boolean;
  cancelRequested: boolean;
  status: Record<string, unknown>;
  completed: boolean;
  /** Set when completed; for a running task the reader computes it from the start time. */
  runningTimeNs: number | null;
  response: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
}

interface TaskRow {
  task_number: string;
  node_id: string;
  node_name: string;
  action: string;
  description: string;
  start_time_ms: string;
  cancellable: boolean;
  cancel_requested: boolean;
  status: Record<string, unknown>;
  completed: boolean;
  running_time_ns: string | null;
  response: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
}

const COLUMNS =
  'task_number, node_id, node_name, action, description, start_time_ms, cancellable, cancel_requested, status, completed, running_time_ns, response, error';

function toTask(row: TaskRow): TaskRecord {
  return {
    taskNumber: Number(row.task_number),
    nodeId: row.node_id,
    nodeName: row.node_name,
    action: row.action,
    description: row.description,
    startTimeMs: Number(row.start_time_ms),
    cancellable: row.cancellable,
    cancelRequested: row.cancel_requested,
    status: row.status,
    completed: row.completed,
    runningTimeNs: row.running_time_ns === null ? null : Number(row.running_time_ns),
    response: row.response,
    error: row.error,
  };
}

export interface NewTask {
  nodeId: string;
  nodeName: string;
  action: string;
  description: string;
  startTimeMs: number;
  cancellable: boolean;
  storeResult: boolean;
  status: Record<string, unknown>;
}

export async function saveNewTask(db: Queryable, task: NewTask): Promise<number> {
  const { rows } = await db.query<{ task_number: string }>(
    `INSERT INTO tasks (node_id, node_name, action, description, start_time_ms, cancellable, store_result, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json) RETURNING task_number`,
    [
      task.nodeId,
      task.nodeName,
      task.action,
      task.description,
      task.startTimeMs,
      task.cancellable,
      task.storeResult,
      JSON.stringify(task.status),
    ],
  );
  return Number(rows[0]?.task_number);
}

export async function findTask(db: Queryable, taskNumber: number): Promise<TaskRecord | undefined> {
  const { rows } = await db.query<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE task_number = $1`, [
    taskNumber,
  ]);
  return rows[0] ? toTask(rows[0]) : undefined;
}

/** The running tasks, oldest first, at most `limit` of them. */
export async function findRunningTasks(db: Queryable, limit: number): Promise<TaskRecord[]> {
  const { rows } = await db.query<TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE NOT completed ORDER BY task_number LIMIT $1`,
    [limit],
  );
  return rows.map(toTask);
}

/** Progress after a batch; answers whether someone asked to cancel the task meanwhile. */
export async function saveTaskProgress(
  db: Queryable,
  taskNumber: number,
  status: Record<string, unknown>,
): Promise<boolean> {
  const { rows } = await db.query<{ cancel_requested: boolean }>(
    `UPDATE tasks SET status = $2::json, heartbeat_at = now() WHERE task_number = $1
     RETURNING cancel_requested`,
    [taskNumber, JSON.stringify(status)],
  );
  return rows[0]?.cancel_requested ?? false;
}

export async function saveTaskHeartbeat(db: Queryable, taskNumbers: number[]): Promise<void> {
  if (taskNumbers.length === 0) return;
  await db.query(
    'UPDATE tasks SET heartbeat_at = now() WHERE task_number = ANY($1::bigint[]) AND NOT completed',
    [taskNumbers],
  );
}

/**
 * A finished task: its result stays when it was asked to be stored (wait_for_completion=false),
 * otherwise the row goes, as Elasticsearch forgets a task nobody will ask about.
 */
export async function saveTaskResult(
  db: Queryable,
  taskNumber: number,
  result: {
    status: Record<string, unknown>;
    runningTimeNs: number;
    response?: Record<string, unknown>;
    error?: Record<string, unknown>;
  },
): Promise<void> {
  await db.query('DELETE FROM tasks WHERE task_number = $1 AND NOT store_result', [taskNumber]);
  await db.query(
    `UPDATE tasks SET completed = true, completed_at = now(), status = $2::json, running_time_ns = $3,
       response = $4::json, error = $5::json
     WHERE task_number = $1`,
    [
      taskNumber,
      JSON.stringify(result.status),
      result.runningTimeNs,
      result.response === undefined ? null : JSON.stringify(result.response),
      result.error === undefined ? null : JSON.stringify(result.error),
    ],
  );
}

/** Marks a running cancellable task as cancelled; answers the task as it now is (undefined: none running). */
export async function saveCancelRequest(db: Queryable, taskNumber: number): Promise<TaskRecord | undefined> {
  const { rows } = await db.query<TaskRow>(
    `UPDATE tasks SET cancel_requested = true WHERE task_number = $1 AND NOT completed AND cancellable
     RETURNING ${COLUMNS}`,
    [taskNumber],
  );
  return rows[0] ? toTask(rows[0]) : undefined;
}

/**
 * Running tasks whose instance stopped renewing their heartbeat are finished with `error` (stored
 * when a result was asked for, dropped otherwise): nobody will ever complete them.
 */
export async function saveAbandonedTasks(
  db: Queryable,
  staleSeconds: number,
  error: (taskNumber: number, nodeId: string) => Record<string, unknown>,
): Promise<number> {
  const { rows } = await db.query<{ task_number: string; node_id: string }>(
    `SELECT task_number, node_id FROM tasks
     WHERE NOT completed AND heartbeat_at < now() - make_interval(secs => $1)
     ORDER BY task_number LIMIT 100`,
    [staleSeconds],
  );
  if (rows.length === 0) return 0;
  const numbers = rows.map((r) => r.task_number);
  await db.query(
    'DELETE FROM tasks WHERE task_number = ANY($1::bigint[]) AND NOT store_result AND NOT completed',
    [numbers],
  );
  await db.query(
    `UPDATE tasks t SET completed = true, completed_at = now(),
       running_time_ns = (extract(epoch FROM t.heartbeat_at) * 1000 - t.start_time_ms)::bigint * 1000000,
       error = e.error::json
     FROM unnest($1::bigint[], $2::text[]) AS e(task_number, error)
     WHERE t.task_number = e.task_number AND NOT t.completed`,
    [numbers, rows.map((r) => JSON.stringify(error(Number(r.task_number), r.node_id)))],
  );
  return rows.length;
}

/** Stored results older than the retention go (Elasticsearch leaves `.tasks` clean-up to the user). */
export async function deleteExpiredTasks(db: Queryable, retentionHours: number): Promise<void> {
  await db.query(
    `DELETE FROM tasks WHERE task_number IN (
       SELECT task_number FROM tasks WHERE completed AND completed_at < now() - make_interval(hours => $1)
       LIMIT 1000)`,
    [retentionHours],
  );
}
