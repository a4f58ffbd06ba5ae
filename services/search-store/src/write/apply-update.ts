import { EsError } from '@acme/common';
import type { UpdateScriptContext } from '../script/script-runner';
import { documentMissing } from '../es-errors';
import { filterSource } from '../source/filter-source';
import { sourceTooLarge } from '../source/source-too-large';
import {
  checkConditions,
  checkId,
  mapSource,
  putDoc,
  successBody,
  type DocState,
  type IndexState,
  type WriteDeps,
  type WriteOptions,
} from './index-state';
import { isPlainObject, jsonEquals, mergePartialDoc } from './merge-partial-doc';
import type { UpdateOp, WriteResult } from './write-op';

const UPDATE_FIELDS = new Set([
  'doc',
  'upsert',
  'doc_as_upsert',
  'detect_noop',
  'script',
  'scripted_upsert',
  '_source',
  'if_seq_no',
  'if_primary_term',
]);

interface ScriptSpec {
  source: string;
  params: Record<string, unknown>;
}

/** Validates the update body (ES UpdateRequest#fromXContent and #validate). */
function parseUpdateBody(body: Record<string, unknown>): {
  doc?: Record<string, unknown>;
  upsert?: Record<string, unknown>;
  docAsUpsert: boolean;
  detectNoop: boolean;
  script?: ScriptSpec;
  scriptedUpsert: boolean;
} {
  for (const key of Object.keys(body)) {
    if (!UPDATE_FIELDS.has(key)) {
      throw new EsError('x_content_parse_exception', `[1:2] [UpdateRequest] unknown field [${key}]`);
    }
  }
  const errors: string[] = [];
  if (body.doc !== undefined && !isPlainObject(body.doc)) errors.push('doc must be an object');
  if (body.upsert !== undefined && !isPlainObject(body.upsert)) errors.push('upsert must be an object');
  if (body.doc === undefined && body.script === undefined) errors.push('script or doc is missing');
  if (body.doc !== undefined && body.script !== undefined) errors.push("can't provide both script and doc");
  if (errors.length > 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: ${errors.map((e, i) => `${i + 1}: ${e};`).join('')}`,
    );
  }
  return {
    doc: body.doc as Record<string, unknown> | undefined,
    upsert: body.upsert as Record<string, unknown> | undefined,
    docAsUpsert: body.doc_as_upsert === true,
    detectNoop: body.detect_noop !== false,
    script: body.script === undefined ? undefined : parseScript(body.script),
    scriptedUpsert: body.scripted_upsert === true,
  };
}

function parseScript(script: unknown): ScriptSpec {
  if (typeof script === 'string') return { source: script, params: {} };
  if (isPlainObject(script) && typeof script.source === 'string') {
    return { source: script.source, params: isPlainObject(script.params) ? script.params : {} };
  }
  throw new EsError('illegal_argument_exception', 'script must have a [source]');
}

async function runScript(
  deps: WriteDeps,
  script: ScriptSpec,
  ctx: UpdateScriptContext,
): Promise<UpdateScriptContext> {
  if (!deps.scriptRunner) throw new EsError('illegal_argument_exception', 'script support is not available');
  return deps.scriptRunner.runUpdateScript(script.source, script.params, ctx, {
    maxSourceBytes: deps.config.MAX_REQUEST_BYTES,
  });
}

/**
 * The new source as Elasticsearch re-serialises it before indexing (ES UpdateHelper), refused when it
 * is larger than a request may be: the stored document stays as it was.
 */
function serializeUpdated(deps: WriteDeps, source: Record<string, unknown>): string {
  const text = JSON.stringify(source);
  const size = Buffer.byteLength(text, 'utf8');
  if (size > deps.config.MAX_REQUEST_BYTES) throw sourceTooLarge(deps.config.MAX_REQUEST_BYTES, size);
  return text;
}

/**
 * POST /<index>/_update/<id> and bulk `update` (ES "Update API"): a partial `doc` merged into the
 * current source (`detect_noop`, default true, answers `noop` when nothing changes), a `script` run
 * through the ScriptRunner seam, `upsert` / `doc_as_upsert` / `scripted_upsert` for a missing document,
 * `document_missing_exception` otherwise.
 */
export async function applyUpdate(
  deps: WriteDeps,
  state: IndexState,
  op: UpdateOp,
  options: WriteOptions,
): Promise<WriteResult> {
  const result = await applyUpdateOnly(deps, state, op, options);
  const fetch = op.fetchSource ?? parseBodySource(op.body._source);
  const doc = state.docs.get(op.id);
  if (!result.ok || !fetch || !doc?.exists) return result;
  const get = {
    _seq_no: doc.seqNo,
    _primary_term: doc.primaryTerm,
    found: true,
    _source: filterSource(doc.source, fetch.includes, fetch.excludes),
  };
  return { ...result, body: { ...result.body, get } };
}

/** Body `_source`: true, a list of includes, or {includes, excludes}. */
function parseBodySource(value: unknown): { includes: string[]; excludes: string[] } | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { includes: [], excludes: [] };
  if (typeof value === 'string') return { includes: [value], excludes: [] };
  if (Array.isArray(value)) return { includes: value.map(String), excludes: [] };
  if (isPlainObject(value)) {
    const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);
    return { includes: list(value.includes), excludes: list(value.excludes) };
  }
  return undefined;
}

async function applyUpdateOnly(
  deps: WriteDeps,
  state: IndexState,
  op: UpdateOp,
  options: WriteOptions,
): Promise<WriteResult> {
  checkId(op.id);
  const update = parseUpdateBody(op.body);
  const current = state.docs.get(op.id);
  const target = { index: state.record.name, uuid: state.record.uuid };
  if (!current?.exists) {
    let source: Record<string, unknown> | undefined;
    if (update.script && update.scriptedUpsert && update.upsert) {
      const ctx = await runScript(
        deps,
        update.script,
        newContext(state, op.id, structuredClone(update.upsert), 'create', 0),
      );
      if (ctx.op === 'none' || ctx.op === 'noop') return noop(state, op.id, current);
      source = ctx._source;
    } else if (update.upsert) source = update.upsert;
    else if (update.docAsUpsert && update.doc) source = update.doc;
    if (!source) throw documentMissing(target, op.id);
    // Elasticsearch indexes the upsert as a new compact source, so [line:col] refer to that text.
    const mapped = mapSource(state, op.id, source, serializeUpdated(deps, source), undefined, false);
    const doc = putDoc(state, op.id, mapped, 1);
    return { ok: true, status: 201, body: successBody(state, op.id, doc, 'created', options.refresh) };
  }
  checkConditions(state, op.id, current, op);
  let merged: Record<string, unknown>;
  if (update.script) {
    const ctx = await runScript(
      deps,
      update.script,
      newContext(state, op.id, structuredClone(current.source), 'index', current.version),
    );
    if (ctx.op === 'none' || ctx.op === 'noop') return noop(state, op.id, current);
    if (ctx.op === 'delete') {
      const seqNo = state.nextSeqNo;
      state.nextSeqNo += 1;
      const doc: DocState = { ...current, exists: false, version: current.version + 1, seqNo, dirty: true };
      state.docs.set(op.id, doc);
      return { ok: true, status: 200, body: successBody(state, op.id, doc, 'deleted', options.refresh) };
    }
    merged = ctx._source;
  } else {
    merged = mergePartialDoc(current.source, update.doc ?? {});
    if (update.detectNoop && jsonEquals(merged, current.source)) return noop(state, op.id, current);
  }
  // The merged source is re-serialised before indexing (ES UpdateHelper); locate errors in it.
  const mapped = mapSource(state, op.id, merged, serializeUpdated(deps, merged), undefined, false);
  const doc = putDoc(state, op.id, mapped, current.version + 1);
  return { ok: true, status: 200, body: successBody(state, op.id, doc, 'updated', options.refresh) };
}

function newContext(
  state: IndexState,
  id: string,
  source: Record<string, unknown>,
  op: UpdateScriptContext['op'],
  version: number,
): UpdateScriptContext {
  return { _source: source, op, _id: id, _index: state.record.name, _version: version, _now: Date.now() };
}

/** A noop keeps version and seq_no and reports no shard work (`_shards` all 0). */
function noop(state: IndexState, id: string, current: DocState | undefined): WriteResult {
  return {
    ok: true,
    status: 200,
    body: {
      _index: state.record.name,
      _id: id,
      _version: current?.version ?? 0,
      result: 'noop',
      _shards: { total: 0, successful: 0, failed: 0 },
      _seq_no: current?.seqNo ?? -1,
      _primary_term: current?.primaryTerm ?? 0,
    },
  };
}
