import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolClient } from 'pg';
import { EsError, isEsError } from '@acme/common';
import { compileReindexSelection } from '../../query/compile/compile-reindex-selection';
import { resolveSearchIndices } from '../../search/search-index-resolver';
import {
  fetchMatchedDocs,
  openMatchedDocsScroll,
  type ScrolledDocument,
} from '../../storage/by-query-scroll.repo';
import { executeWrites, type WriteDeps } from '../execute-writes';
import type { WriteOp, WriteResult } from '../write-op';
import type { UpdateScriptContext } from '../../script/script-runner';
import { byQueryGateFor } from './by-query-gate';
import type { ByQueryRequest } from './by-query-request';

/** What ES's BulkByScrollTask.Status counts (the route renders it, the task stores it). */
export interface ByQueryCounts {
  total: number;
  updated: number;
  deleted: number;
  batches: number;
  versionConflicts: number;
  noops: number;
  throttledMillis: number;
  /** -1 when unthrottled, as Elasticsearch reports it. */
  requestsPerSecond: number;
  /** Set when the task was cancelled: ES's `canceled` ("by user request"). */
  canceled?: string;
}

export interface ByQueryFailure {
  index: string;
  id: string;
  error: EsError;
}

export interface ByQueryOutcome extends ByQueryCounts {
  failures: ByQueryFailure[];
}

/** Called after each batch with the counts so far; answers true when the task is to stop (cancelled). */
export type ByQueryProgress = (counts: ByQueryCounts) => Promise<boolean>;

/**
 * `_delete_by_query` / `_update_by_query` (ES "Delete by query API", "Update by query API"): reads the
 * matching documents from one snapshot (a cursor in a REPEATABLE READ transaction, Elasticsearch's
 * scroll), `batchSize` at a time, and writes each batch through the write path of bulk
 * (`executeWrites`: one transaction per batch, the IndexWriter, versions and seq_nos as for any write),
 * each op carrying the snapshot's seq_no and primary term (`if_seq_no`), so a document changed since
 * the snapshot is a version conflict, as in Elasticsearch. A conflict ends the run after its batch
 * unless `conflicts: proceed`; any other failure ends it. Between batches: the progress callback
 * (task status, cancellation) and the `requests_per_second` wait.
 */
export async function runByQuery(
  deps: WriteDeps,
  request: ByQueryRequest,
  onBatch?: ByQueryProgress,
): Promise<ByQueryOutcome> {
  const release = await byQueryGateFor(deps.pool).acquire();
  try {
    const client = await deps.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const outcome = await scrollAndWrite(deps, client, request, onBatch);
      await client.query('COMMIT');
      if (request.refresh) await deps.replicas?.awaitReplay();
      return outcome;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  } finally {
    release();
  }
}

async function scrollAndWrite(
  deps: WriteDeps,
  client: PoolClient,
  request: ByQueryRequest,
  onBatch: ByQueryProgress | undefined,
): Promise<ByQueryOutcome> {
  const indices = await resolveSearchIndices(client, request.indices, {
    ignoreUnavailable: request.ignoreUnavailable,
    allowNoIndices: request.allowNoIndices,
  });
  const names = new Map(indices.map((index) => [index.index_id, index.name]));
  // The engine's planner selects the documents; a plain match_all without alias filters needs none.
  const matched =
    request.query || indices.some((index) => index.aliasFilter !== undefined)
      ? await compileReindexSelection(client, indices, request.query ?? { kind: 'match_all', boost: 1 })
      : undefined;
  const outcome: ByQueryOutcome = {
    total: 0,
    updated: 0,
    deleted: 0,
    batches: 0,
    versionConflicts: 0,
    noops: 0,
    throttledMillis: 0,
    requestsPerSecond: Number.isFinite(request.requestsPerSecond) ? request.requestsPerSecond : -1,
    failures: [],
  };
  if (indices.length === 0) return outcome;
  outcome.total = await openMatchedDocsScroll(
    client,
    indices.map((index) => index.index_id),
    matched,
    request.maxDocs,
    request.kind === 'update',
  );
  // The total is known once the scroll is open: report it (ES sets it from the first scroll page).
  if (onBatch && (await onBatch(outcome))) {
    outcome.canceled = 'by user request';
    return outcome;
  }
  let remaining = outcome.total;
  // Bounded: every turn consumes at least one of the `total` snapshot documents or stops.
  while (remaining > 0) {
    const started = Date.now();
    const docs = await fetchMatchedDocs(client, Math.min(request.batchSize, remaining));
    if (docs.length === 0) break;
    remaining -= docs.length;
    outcome.batches += 1;
    const stop = await writeBatch(deps, request, docs, names, outcome);
    if (stop) break;
    if (onBatch && (await onBatch(outcome))) {
      outcome.canceled = 'by user request';
      break;
    }
    if (remaining > 0) await throttle(request, docs.length, started, outcome);
  }
  return outcome;
}

/** Writes one batch and tallies it; answers true when the run must stop (ES aborts on a failure). */
async function writeBatch(
  deps: WriteDeps,
  request: ByQueryRequest,
  docs: ScrolledDocument[],
  names: Map<string, string>,
  outcome: ByQueryOutcome,
): Promise<boolean> {
  const ops: WriteOp[] = [];
  for (const doc of docs) {
    const op = toWriteOp(deps, request, doc, names.get(doc.indexId) ?? '');
    if (op) ops.push(op);
    else outcome.noops += 1;
  }
  const results: WriteResult[] = ops.length > 0 ? await executeWrites(deps, ops, { refresh: 'false' }) : [];
  let stop = false;
  for (const [i, result] of results.entries()) {
    if (result.ok) {
      if (result.body.result === 'deleted') outcome.deleted += 1;
      else outcome.updated += 1;
      continue;
    }
    const conflict = result.error.type === 'version_conflict_engine_exception';
    if (conflict) outcome.versionConflicts += 1;
    if (conflict && request.proceedOnConflicts) continue;
    outcome.failures.push({ index: result.index, id: ops[i]?.id ?? '', error: result.error });
    stop = true;
  }
  return stop;
}

/**
 * The op a document becomes: a delete, the document indexed again (update without a script: picks up
 * new mappings), or what the script says (`ctx.op`: index, `noop` → undefined, `delete`), each with
 * the snapshot's seq_no and primary term as its condition.
 */
function toWriteOp(
  deps: WriteDeps,
  request: ByQueryRequest,
  doc: ScrolledDocument,
  index: string,
): WriteOp | undefined {
  const conditions = { ifSeqNo: doc.seqNo, ifPrimaryTerm: doc.primaryTerm };
  if (request.kind === 'delete') return { kind: 'delete', index, id: doc.id, ...conditions };
  const source = JSON.parse(doc.sourceText) as Record<string, unknown>;
  if (!request.script) {
    return { kind: 'index', index, id: doc.id, source, sourceText: doc.sourceText, ...conditions };
  }
  if (!deps.scriptRunner) throw new EsError('illegal_argument_exception', 'script support is not available');
  // ctx._version is -1 unless the request asked for versions (ES 8.4+, update_by_query/80_scripting.yml).
  const version = request.version ? doc.version : -1;
  let ctx: UpdateScriptContext;
  try {
    ctx = deps.scriptRunner.runUpdateScript(
      request.script.source,
      request.script.params,
      { _source: source, op: 'index', _id: doc.id, _index: index, _version: version, _now: Date.now() },
      { maxSourceBytes: deps.config.MAX_REQUEST_BYTES },
    );
  } catch (error) {
    throw scriptFailure(error);
  }
  if (ctx.op === 'noop' || ctx.op === 'none') return undefined;
  if (ctx.op === 'delete') return { kind: 'delete', index, id: doc.id, ...conditions };
  if (ctx.op !== 'index') {
    // ES 8.5+ UpdateByQueryMetadata: only these three.
    throw new EsError(
      'illegal_argument_exception',
      `[op] must be one of delete, index, noop, not [${ctx.op}]`,
    );
  }
  return { kind: 'index', index, id: doc.id, source: ctx._source, ...conditions };
}

/**
 * The ScriptRunner answers as the Update API does ("failed to execute script" around the
 * script_exception); a by-query fails with the script_exception itself (ES: `error.reason` is
 * "compile error" for a script that does not compile).
 */
function scriptFailure(error: unknown): unknown {
  if (!isEsError(error) || error.causedBy?.type !== 'script_exception') return error;
  const { type: _type, reason, caused_by: causedBy, ...metadata } = error.causedBy;
  return new EsError('script_exception', reason ?? 'runtime error', { metadata, causedBy });
}

/**
 * `requests_per_second` (ES WorkerBulkByScrollTaskState): after a batch of n documents, wait until
 * n / rate seconds have passed since the batch began. Bounded by the rate's smallest value ES allows.
 */
async function throttle(
  request: ByQueryRequest,
  count: number,
  started: number,
  outcome: ByQueryOutcome,
): Promise<void> {
  if (!Number.isFinite(request.requestsPerSecond)) return;
  const wait = Math.round((count / request.requestsPerSecond) * 1000) - (Date.now() - started);
  if (wait <= 0) return;
  await sleep(wait);
  outcome.throttledMillis += wait;
}
