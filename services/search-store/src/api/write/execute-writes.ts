import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { EsError } from '@acme/common';
import { locatorFor } from '../../http/locate-json-path';
import type { RefreshPolicy } from '../../http/query-params';
import type { IndexContext, IndexWriter } from '../../index/index-writer';
import { mapDocument } from '../../mapping/map-document';
import type { IndexMapping } from '../../mapping/mapping-types';
import type { ScriptRunner } from '../../script/script-runner';
import {
  deleteDocumentsByKey,
  findDocuments,
  saveDocuments,
  type StoredDocument,
} from '../../storage/documents.repo';
import {
  findIndicesByName,
  lockIndices,
  saveMappings,
  saveMaxSeqNo,
  saveNewIndex,
  type IndexRecord,
} from '../../storage/indices.repo';
import { findClusterSettings } from '../../storage/cluster-settings.repo';
import { inTransaction } from '../../storage/queryable';
import { checkIndexName } from '../check-index-name';
import { newIndexUuid } from '../create-index';
import { documentExists, indexNotFound, readOnlyBlocked, versionConflict, writeBlocked } from '../es-errors';
import { loadCatalog, resolveWriteIndex, type Catalog } from '../index-expression';
import { buildIndexSettings, shardsOf } from '../index-settings';
import { applyUpdate } from './apply-update';
import type { WriteConditions, WriteOp, WriteResult } from './write-op';

export interface WriteDeps {
  pool: Pool;
  indexWriter: IndexWriter;
  scriptRunner?: ScriptRunner;
}

export interface WriteOptions {
  refresh: RefreshPolicy;
}

/** What a document looks like at this point of the batch (rows are written once, at the end). */
export interface DocState {
  exists: boolean;
  source: Record<string, unknown>;
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

/**
 * Runs a batch of document writes in one transaction (API-NOTES §A3.2): resolve targets (aliases to
 * their write index, missing indices auto-created with dynamic mapping), lock the index rows in id
 * order, load the batch's documents in one query, apply every op in order in memory (validation,
 * dynamic mapping, versions, seq_nos, conflicts) so a failing item never touches the others, then
 * write each index's changes set-based: old rows out, new rows in (fresh doc_keys), the inverted index
 * through the IndexWriter seam, mapping and max seq_no saved.
 */
export async function executeWrites(
  deps: WriteDeps,
  ops: WriteOp[],
  options: WriteOptions,
): Promise<WriteResult[]> {
  return inTransaction(deps.pool, async (client) => {
    const results: (WriteResult | undefined)[] = new Array(ops.length).fill(undefined);
    const targets = await resolveTargets(client, ops, results);
    const states = await loadStates(client, ops, targets);
    for (const [i, op] of ops.entries()) {
      const state = targets[i] === undefined ? undefined : states.get(targets[i]);
      if (results[i] || !state) continue;
      results[i] = await applyOp(deps, state, op, options);
    }
    for (const state of states.values()) await flushIndex(client, deps.indexWriter, state);
    return results.map(
      (r, i) => r ?? failure(ops[i] as WriteOp, new EsError('exception', 'write was not applied')),
    );
  });
}

function failure(op: WriteOp, error: EsError, index = op.index): WriteResult {
  return { ok: false, status: error.status, index, id: op.id, error };
}

/** Maps each op to an index id, auto-creating missing indices; unresolvable ops get their error now. */
async function resolveTargets(
  client: PoolClient,
  ops: WriteOp[],
  results: (WriteResult | undefined)[],
): Promise<(string | undefined)[]> {
  const catalog = await loadCatalog(client);
  const created = await autoCreateMissing(client, catalog, ops);
  const targets: (string | undefined)[] = [];
  for (const [i, op] of ops.entries()) {
    try {
      const record = resolveWriteIndex(catalog, op.index) ?? created.get(op.index);
      if (!record) {
        if (op.kind === 'delete') throw indexNotFound(op.index);
        checkIndexName(op.index);
        throw indexNotFound(op.index).with({
          reason: `no such index [${op.index}] and [action.auto_create_index] is [false]`,
        });
      }
      targets.push(record.indexId);
    } catch (error) {
      if (!(error instanceof EsError)) throw error;
      results[i] = failure(op, error);
      targets.push(undefined);
    }
  }
  return targets;
}

/**
 * Creates the batch's missing indices (valid names, ops that auto-create), in name order so that two
 * batches creating the same names wait for each other instead of deadlocking.
 */
async function autoCreateMissing(
  client: PoolClient,
  catalog: Catalog,
  ops: WriteOp[],
): Promise<Map<string, IndexRecord>> {
  const created = new Map<string, IndexRecord>();
  const names = new Set<string>();
  for (const op of ops) {
    if (op.kind === 'delete' || names.has(op.index)) continue;
    try {
      if (resolveWriteIndex(catalog, op.index)) continue;
      checkIndexName(op.index);
      names.add(op.index);
    } catch (error) {
      if (!(error instanceof EsError)) throw error; // reported per item by resolveTargets
    }
  }
  if (names.size === 0) return created;
  if ((await findClusterSettings(client))['action.auto_create_index'] === 'false') return created;
  for (const name of [...names].sort()) created.set(name, await autoCreateIndex(client, name));
  return created;
}

/** `action.auto_create_index` (default true): a plain index with dynamic mapping and default settings. */
async function autoCreateIndex(client: PoolClient, name: string): Promise<IndexRecord> {
  const uuid = newIndexUuid();
  const settings = buildIndexSettings(name, uuid, {});
  const created = await saveNewIndex(client, { name, uuid, mappings: {}, settings, blocksWrite: false });
  if (created) return created;
  const [existing] = await findIndicesByName(client, [name]); // created concurrently
  if (!existing) throw new EsError('exception', `index [${name}] could not be created`);
  return existing;
}

async function loadStates(
  client: PoolClient,
  ops: WriteOp[],
  targets: (string | undefined)[],
): Promise<Map<string, IndexState>> {
  const indexIds = [...new Set(targets.filter((t): t is string => t !== undefined))];
  const records = await lockIndices(client, indexIds);
  const states = new Map<string, IndexState>();
  for (const record of records) {
    const ids = [
      ...new Set(ops.filter((op, i) => targets[i] === record.indexId && op.id).map((op) => op.id as string)),
    ];
    const rows = ids.length > 0 ? await findDocuments(client, record.indexId, ids) : [];
    const original = new Map(rows.map((row) => [row.id, row]));
    const docs = new Map<string, DocState>(
      rows.map((row) => [
        row.id,
        {
          exists: true,
          source: row.source,
          version: row.version,
          seqNo: row.seqNo,
          primaryTerm: row.primaryTerm,
          dirty: false,
        },
      ]),
    );
    states.set(record.indexId, {
      record,
      mapping: record.mappings,
      mappingChanged: false,
      nextSeqNo: record.maxSeqNo + 1,
      original,
      docs,
    });
  }
  return states;
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

async function applyOp(
  deps: WriteDeps,
  state: IndexState,
  op: WriteOp,
  options: WriteOptions,
): Promise<WriteResult> {
  const name = state.record.name;
  try {
    if (state.record.blocksWrite) throw writeBlocked(name);
    if (state.record.settings['index.blocks.read_only'] === 'true') throw readOnlyBlocked(name);
    if (op.kind === 'update') return await applyUpdate(deps, state, op, options);
    if (op.kind === 'delete') return applyDelete(state, op, options);
    return applyIndex(state, op, options);
  } catch (error) {
    if (!(error instanceof EsError)) throw error;
    return failure(op, error, name);
  }
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

function nextVersion(current: DocState | undefined, conditions: WriteConditions): number {
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
): Record<string, unknown> {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new EsError(
      'document_parsing_exception',
      `[1:1] failed to parse: the document source must be a JSON object`,
    );
  }
  const mapped = mapDocument(state.mapping, source as Record<string, unknown>, id, locatorFor(text, base));
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
): DocState {
  const doc: DocState = {
    exists: true,
    source,
    version,
    seqNo: state.nextSeqNo,
    primaryTerm: 1,
    dirty: true,
  };
  state.nextSeqNo += 1;
  state.docs.set(id, doc);
  return doc;
}

function applyIndex(
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
  const doc = putDoc(state, id, source, nextVersion(current, op));
  return {
    ok: true,
    status: created ? 201 : 200,
    body: successBody(state, id, doc, created ? 'created' : 'updated', options.refresh),
  };
}

function applyDelete(
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

/** Writes one index's net changes: old rows and postings out, new rows and postings in, mapping, seq_no. */
async function flushIndex(client: PoolClient, indexWriter: IndexWriter, state: IndexState): Promise<void> {
  const removed: string[] = [];
  const inserted: { id: string; doc: DocState }[] = [];
  for (const [id, doc] of state.docs) {
    if (!doc.dirty) continue;
    const before = state.original.get(id);
    if (before) removed.push(before.docKey);
    if (doc.exists) inserted.push({ id, doc });
  }
  const { record } = state;
  if (state.mappingChanged) await saveMappings(client, record.indexId, state.mapping);
  const context: IndexContext = {
    indexId: record.indexId,
    name: record.name,
    mappings: state.mapping,
    settings: record.settings,
  };
  if (removed.length > 0) {
    await indexWriter.remove(client, context, removed);
    await deleteDocumentsByKey(client, record.indexId, removed);
  }
  const keys = await saveDocuments(
    client,
    record.indexId,
    inserted.map(({ id, doc }) => ({
      id,
      source: doc.source,
      version: doc.version,
      seqNo: doc.seqNo,
      primaryTerm: doc.primaryTerm,
    })),
  );
  if (inserted.length > 0) {
    await indexWriter.add(
      client,
      context,
      inserted.map(({ id, doc }) => ({ docKey: keys.get(id) as string, source: doc.source })),
    );
  }
  if (state.nextSeqNo - 1 !== record.maxSeqNo)
    await saveMaxSeqNo(client, record.indexId, state.nextSeqNo - 1);
}
