/**
 * The in-memory state of one batch's indices and documents, and the checks every write op shares
 * (ids, optimistic concurrency, mapping, seq_nos, the response body).
 */
import type { Pool } from 'pg';
import type { SearchConfig } from '../config';
import { EsError } from '@acme/common';
import { locatorFor, rawNumberFor } from '../http/locate-json-path';
import type { RefreshPolicy } from '../http/query-params';
import type { IndexWriter } from '../index/index-writer';
import { mapDocument } from '../mapping/map-document';
import { mappingLimitsOf } from '../mapping/mapping-limits';
import type { IndexMapping } from '../mapping/mapping-types';
import type { ScriptRunner } from '../script/script-runner';
import type { StoredDocument } from '../storage/documents.repo';
import type { IndexRecord } from '../storage/indices.repo';
import type { ReplicaSet } from '../storage/replica-set';
import { versionConflict } from '../es-errors';
import { shardsOf } from '../catalog/index-settings';
import type { WriteConditions } from './write-op';

export interface WriteDeps {
  pool: Pool;
  indexWriter: IndexWriter;
  scriptRunner?: ScriptRunner;
  /** MAX_REQUEST_BYTES also bounds the source an update writes (a script or merge cannot exceed it). */
  config: Pick<SearchConfig, 'MAX_REQUEST_BYTES'>;
  /** Read replicas: a `refresh` write waits until they replayed it (storage/replica-set.ts). */
  replicas?: ReplicaSet;
}

export interface WriteOptions {
  refresh: RefreshPolicy;
}

/** What a document looks like at this point of the batch (rows are written once, at the end). */
export interface DocState {
  exists: boolean;
  source: Record<string, unknown>;
  /** The source exactly as sent (index API body, bulk line), stored verbatim; absent for merged updates. */
  sourceText?: string;
  version: number;
  seqNo: number;
  primaryTerm: number;
  dirty: boolean;
}

export interface IndexState {
  record: IndexRecord;
  mapping: IndexMapping;
  mappingChanged: boolean;
  nextSeqNo: number;
  original: Map<string, StoredDocument>;
  docs: Map<string, DocState>;
}

export function successBody(
  state: IndexState,
  id: string,
  doc: { version: number; seqNo: number; primaryTerm: number },
  result: string,
  refresh: RefreshPolicy,
): Record<string, unknown> {
  const body: Record<string, unknown> = { _index: state.record.name, _id: id, _version: doc.version, result };
  if (refresh === 'true') body.forced_refresh = true;
  body._shards = shardsOf(state.record.settings);
  body._seq_no = doc.seqNo;
  body._primary_term = doc.primaryTerm;
  return body;
}

/** Checks if_seq_no/if_primary_term and external versions against the current document. */
export function checkConditions(
  state: IndexState,
  id: string,
  current: DocState | undefined,
  conditions: WriteConditions,
): void {
  const target = { index: state.record.name, uuid: state.record.uuid };
  if (conditions.ifSeqNo !== undefined) {
    const required = `required seqNo [${conditions.ifSeqNo}], primary term [${conditions.ifPrimaryTerm ?? 0}].`;
    if (!current?.exists) throw versionConflict(target, id, `${required} but no document was found`);
    if (current.seqNo !== conditions.ifSeqNo || current.primaryTerm !== conditions.ifPrimaryTerm) {
      throw versionConflict(
        target,
        id,
        `${required} current document has seqNo [${current.seqNo}] and primary term [${current.primaryTerm}]`,
      );
    }
  }
  if (
    conditions.version !== undefined &&
    current?.exists &&
    conditions.versionType !== undefined &&
    conditions.versionType !== 'internal'
  ) {
    const gte = conditions.versionType === 'external_gte';
    const conflict = gte ? conditions.version < current.version : conditions.version <= current.version;
    if (conflict) {
      const relation = gte ? 'higher than' : 'higher or equal to';
      throw versionConflict(
        target,
        id,
        `current version [${current.version}] is ${relation} the one provided [${conditions.version}]`,
      );
    }
  }
}

export function nextVersion(current: DocState | undefined, conditions: WriteConditions): number {
  if (
    conditions.version !== undefined &&
    conditions.versionType !== undefined &&
    conditions.versionType !== 'internal'
  ) {
    return conditions.version;
  }
  return current?.exists ? current.version + 1 : 1;
}

export function checkId(id: string): void {
  if (id.length === 0)
    throw new EsError('illegal_argument_exception', 'if _id is specified it must not be empty');
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > 512) {
    throw new EsError(
      'illegal_argument_exception',
      `id [${id}] is too long, must be no longer than 512 bytes but was: ${bytes}`,
    );
  }
}

/** Validates a source against the index's working mapping and records dynamic additions. */
export function mapSource(
  state: IndexState,
  id: string,
  source: unknown,
  text?: string,
  base?: (string | number)[],
  /** False when `text` is our re-serialisation, whose numbers are doubles, not the client's digits. */
  verbatim = true,
): Record<string, unknown> {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new EsError(
      'document_parsing_exception',
      `[1:1] failed to parse: the document source must be a JSON object`,
    );
  }
  const mapped = mapDocument(state.mapping, source as Record<string, unknown>, id, locatorFor(text, base), {
    limits: mappingLimitsOf(state.record.settings),
    rawNumber: verbatim ? rawNumberFor(text, base) : undefined,
  });
  if (mapped.changed) {
    state.mapping = mapped.mapping;
    state.mappingChanged = true;
  }
  return source as Record<string, unknown>;
}

/** Writes a new state for a document, consuming the next seq_no. */
export function putDoc(
  state: IndexState,
  id: string,
  source: Record<string, unknown>,
  version: number,
  sourceText?: string,
): DocState {
  const doc: DocState = {
    exists: true,
    source,
    sourceText,
    version,
    seqNo: state.nextSeqNo,
    primaryTerm: 1,
    dirty: true,
  };
  state.nextSeqNo += 1;
  state.docs.set(id, doc);
  return doc;
}
