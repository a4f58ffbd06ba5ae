import type { TaskRecord } from '../storage/tasks.repo';

/**
 * A task as ES TaskInfo#toXContent writes it: node, id, type, action, status and description (when
 * detailed), start_time_in_millis, running_time_in_nanos, cancellable, cancelled, headers.
 */
export function renderTaskInfo(
  task: TaskRecord,
  detailed: boolean,
  now = Date.now(),
): Record<string, unknown> {
  const info: Record<string, unknown> = {
    node: task.nodeId,
    id: task.taskNumber,
    type: 'transport',
    action: task.action,
  };
  if (detailed) {
    info.status = task.status;
    info.description = task.description;
  }
  info.start_time_in_millis = task.startTimeMs;
  info.running_time_in_nanos = task.runningTimeNs ?? Math.max(0, now - task.startTimeMs) * 1_000_000;
  info.cancellable = task.cancellable;
  if (task.cancellable) info.cancelled = task.cancelRequested;
  info.headers = {};
  return info;
}

/** GET /_tasks/<id> (ES GetTaskResponse → TaskResult): completed, task, and response or error. */
export function renderTaskResult(task: TaskRecord): Record<string, unknown> {
  const body: Record<string, unknown> = { completed: task.completed, task: renderTaskInfo(task, true) };
  if (task.error) body.error = task.error;
  if (task.response) body.response = task.response;
  return body;
}
