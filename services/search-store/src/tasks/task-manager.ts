import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { EsError } from '@acme/common';
import {
  deleteExpiredTasks,
  findRunningTasks,
  findTask,
  saveAbandonedTasks,
  saveCancelRequest,
  saveNewTask,
  saveTaskHeartbeat,
  saveTaskProgress,
  saveTaskResult,
  type TaskRecord,
} from '../storage/tasks.repo';
import { formatTaskId, nodeIdOf, type TaskId } from './task-id';

/** A running instance renews its tasks' heartbeat this often. */
export const HEARTBEAT_MS = 10_000;
/**
 * A running task whose heartbeat is older than this belongs to an instance that stopped (crash,
 * SIGKILL, a drain that outlived its grace period): it is finished as failed at the next read.
 */
export const ABANDONED_AFTER_SECONDS = 60;
/** Stored results are kept a week (Elasticsearch keeps `.tasks` documents until the user deletes them). */
export const RESULT_RETENTION_HOURS = 24 * 7;
/** GET /_tasks lists at most this many running tasks. */
export const MAX_LISTED_TASKS = 1000;
const POLL_MS = 100;

export interface TaskMeta {
  action: string;
  description: string;
  cancellable: boolean;
  /** wait_for_completion=false: keep the result for GET /_tasks/<id> (ES stores it in `.tasks`). */
  storeResult: boolean;
  status: Record<string, unknown>;
}

/** A task this instance runs: progress, cancellation and the end go to its row. */
export interface RunningTask {
  readonly id: string;
  /** Saves the status; answers true when someone asked to cancel the task. */
  progress(status: Record<string, unknown>): Promise<boolean>;
  finish(status: Record<string, unknown>, response: Record<string, unknown>): Promise<void>;
  fail(status: Record<string, unknown>, error: Record<string, unknown>): Promise<void>;
}

/**
 * Elasticsearch's task manager over the `tasks` table (ES "Task management API"): every instance
 * registers its by-query tasks there, so any instance answers GET /_tasks/<id>, lists and cancels them.
 */
export class TaskManager {
  readonly nodeId: string;

  constructor(
    private readonly pool: Pool,
    readonly nodeName: string,
  ) {
    this.nodeId = nodeIdOf(nodeName);
  }

  async start(meta: TaskMeta): Promise<RunningTask> {
    const startTimeMs = Date.now();
    const startedNs = process.hrtime.bigint();
    await deleteExpiredTasks(this.pool, RESULT_RETENTION_HOURS);
    const number = await saveNewTask(this.pool, {
      nodeId: this.nodeId,
      nodeName: this.nodeName,
      startTimeMs,
      ...meta,
    });
    const heartbeat = setInterval(() => {
      saveTaskHeartbeat(this.pool, [number]).catch(() => undefined);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    const end = async (status: Record<string, unknown>, result: { response?: object; error?: object }) => {
      clearInterval(heartbeat);
      await saveTaskResult(this.pool, number, {
        status,
        runningTimeNs: Number(process.hrtime.bigint() - startedNs),
        response: result.response as Record<string, unknown> | undefined,
        error: result.error as Record<string, unknown> | undefined,
      });
    };
    return {
      id: formatTaskId({ nodeId: this.nodeId, number }),
      progress: (status) => saveTaskProgress(this.pool, number, status),
      finish: (status, response) => end(status, { response }),
      fail: (status, error) => end(status, { error }),
    };
  }

  /**
   * GET /_tasks/<id>: the task, running or stored; with `waitMs` > 0, polls until it completes or the
   * time is up (then answers it as it is). 404 with ES's reasons when there is no such task.
   */
  async get(id: TaskId, waitMs: number, signal?: AbortSignal): Promise<TaskRecord> {
    await this.sweep();
    let task = await findTask(this.pool, id.number);
    const deadline = Date.now() + waitMs;
    // Bounded by the deadline: one read per POLL_MS.
    while (task && task.nodeId === id.nodeId && !task.completed && Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, deadline - Date.now()), undefined, { signal });
      await this.sweep();
      task = await findTask(this.pool, id.number);
    }
    if (!task || task.nodeId !== id.nodeId) throw this.notFound(id);
    return task;
  }

  async listRunning(): Promise<TaskRecord[]> {
    await this.sweep();
    return findRunningTasks(this.pool, MAX_LISTED_TASKS);
  }

  /** POST /_tasks/<id>/_cancel: the task as it now is, or undefined when no such task is running. */
  async cancel(id: TaskId): Promise<TaskRecord | undefined> {
    await this.sweep();
    const task = await findTask(this.pool, id.number);
    if (!task || task.nodeId !== id.nodeId) return undefined;
    return saveCancelRequest(this.pool, id.number);
  }

  private notFound(id: TaskId): EsError {
    const text = formatTaskId(id);
    // ES TransportGetTaskAction: a node outside the cluster, or a task neither running nor stored.
    const reason =
      id.nodeId === this.nodeId
        ? `task [${text}] isn't running and hasn't stored its results`
        : `task [${text}] belongs to the node [${id.nodeId}] which isn't part of the cluster and there is no record of the task`;
    return new EsError('resource_not_found_exception', reason);
  }

  private async sweep(): Promise<void> {
    await saveAbandonedTasks(this.pool, ABANDONED_AFTER_SECONDS, (number, nodeId) => ({
      type: 'exception',
      reason:
        `task [${nodeId}:${number}] was abandoned: the search-store instance running it stopped ` +
        `renewing it for ${ABANDONED_AFTER_SECONDS}s; the batches written before that stay written`,
    }));
  }
}
