import { randomBytes } from 'node:crypto';
import { documentExists } from '../es-errors';
import {
  checkConditions,
  checkId,
  mapSource,
  nextVersion,
  putDoc,
  successBody,
  type DocState,
  type IndexState,
  type WriteOptions,
} from './index-state';
import type { WriteOp, WriteResult } from './write-op';

/** index / create (ES "Index API"): create conflicts, concurrency checks, mapping, version and seq_no. */
export function applyIndex(
  state: IndexState,
  op: WriteOp & { kind: 'index' | 'create' },
  options: WriteOptions,
): WriteResult {
  const id = op.id ?? randomBytes(15).toString('base64url');
  checkId(id);
  const current = state.docs.get(id);
  if (op.kind === 'create' && current?.exists) {
    throw documentExists({ index: state.record.name, uuid: state.record.uuid }, id, current.version);
  }
  checkConditions(state, id, current, op);
  const source = mapSource(state, id, op.source, op.sourceText, op.sourceTextBase);
  const created = !current?.exists;
  const text = op.sourceTextBase ? undefined : op.sourceText;
  const doc = putDoc(state, id, source, nextVersion(current, op), text);
  return {
    ok: true,
    status: created ? 201 : 200,
    body: successBody(state, id, doc, created ? 'created' : 'updated', options.refresh),
  };
}

/** delete (ES "Delete API"): a missing document still takes a seq_no and answers 404 `not_found`. */
export function applyDelete(
  state: IndexState,
  op: WriteOp & { kind: 'delete' },
  options: WriteOptions,
): WriteResult {
  const current = state.docs.get(op.id);
  checkConditions(state, op.id, current, op);
  const seqNo = state.nextSeqNo;
  state.nextSeqNo += 1;
  if (!current?.exists) {
    // Elasticsearch still assigns a seq_no to a delete of a missing document and answers 404 with the same shape.
    const body = successBody(
      state,
      op.id,
      { version: 1, seqNo, primaryTerm: 1 },
      'not_found',
      options.refresh,
    );
    return { ok: true, status: 404, body };
  }
  const doc: DocState = { ...current, exists: false, version: nextVersion(current, op), seqNo, dirty: true };
  state.docs.set(op.id, doc);
  return { ok: true, status: 200, body: successBody(state, op.id, doc, 'deleted', options.refresh) };
}
