import type { PoolClient } from 'pg';
import { EsError } from '@acme/common';
import type { IndexContext, IndexWriter, PreparedDocuments } from '../index/index-writer';
import { findClusterSettings } from '../storage/cluster-settings.repo';
import {
  copyDocuments,
  deleteDocumentsByKey,
  drawDocKeys,
  findDocuments,
  saveDocuments,
} from '../storage/documents.repo';
import { lockIndices, saveMappings, saveMaxSeqNo, type IndexRecord } from '../storage/indices.repo';
import { inRetriedTransaction } from '../storage/queryable';
import { checkIndexName } from '../catalog/check-index-name';
import { autoCreateIndex } from '../catalog/create-index';
import { templateAutoCreate } from '../catalog/index-templates/auto-create-policy';
import { indexClosed, indexNotFound } from '../es-errors';
import { loadCatalogFor, resolveWriteIndex, type Catalog } from '../catalog/index-expression';
import { applyDelete, applyIndex } from './apply-index';
import { applyUpdate } from './apply-update';
import type { DocState, IndexState, WriteDeps, WriteOptions } from './index-state';
import type { WriteOp, WriteResult } from './write-op';
import { checkIndexBlocks } from '../catalog/index-blocks';
import { statisticsRefresherFor } from '../storage/statistics-refresher';
import { segmentMergerFor } from '../index/segment-merger';

export type { DocState, IndexState, WriteDeps, WriteOptions } from './index-state';

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
  let touched: string[] = [];
  const written = await inRetriedTransaction(deps.pool, async (client) => {
    const results: (WriteResult | undefined)[] = new Array(ops.length).fill(undefined);
    const targets = await resolveTargets(client, ops, results);
    const states = await loadStates(client, ops, targets);
    for (const [i, op] of ops.entries()) {
      const state = targets[i] === undefined ? undefined : states.get(targets[i]);
      if (results[i] || !state) continue;
      results[i] = await applyOp(deps, state, op, options);
    }
    for (const state of states.values()) await flushIndex(client, deps.indexWriter, state);
    touched = [...states.values()].map((s) => s.record.indexId);
    return results.map(
      (r, i) => r ?? failure(ops[i] as WriteOp, new EsError('exception', 'write was not applied')),
    );
  });
  statisticsRefresherFor(deps.pool).noteWrites(written.filter((r) => r.ok).length);
  // Each batch wrote its postings as new small blocks: merged in the background (index/segment-merger.ts).
  segmentMergerFor(deps.pool).noteWrites(touched);
  // refresh=true|wait_for: visible to the next search on any instance, replicas included.
  if (options.refresh !== 'false') await deps.replicas?.awaitReplay();
  return written;
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
  // Write targets are concrete names or aliases (never wildcards): load only those.
  const catalog = await loadCatalogFor(client, [...new Set(ops.map((op) => op.index))]);
  const created = await autoCreateMissing(client, catalog, ops);
  const targets: (string | undefined)[] = [];
  for (const [i, op] of ops.entries()) {
    try {
      if (op.requireAlias && op.kind !== 'delete') checkIsAlias(catalog, op.index);
      const made = created.get(op.index);
      if (made instanceof EsError) throw made;
      const record = resolveWriteIndex(catalog, op.index) ?? made;
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

/** ES TransportBulkAction: with `require_alias`, a target that is not an alias is a 404, never created. */
function checkIsAlias(catalog: Catalog, name: string): void {
  if (catalog.aliases.some((a) => a.alias === name)) return;
  throw indexNotFound(name).with({
    reason: `no such index [${name}] and [require_alias] request flag is [true] and [${name}] is not an alias`,
  });
}

/**
 * Creates the batch's missing indices (valid names, ops that auto-create), in name order so that two
 * batches creating the same names wait for each other instead of deadlocking.
 */
async function autoCreateMissing(
  client: PoolClient,
  catalog: Catalog,
  ops: WriteOp[],
): Promise<Map<string, IndexRecord | EsError>> {
  const created = new Map<string, IndexRecord | EsError>();
  const names = new Set<string>();
  for (const op of ops) {
    if (op.kind === 'delete' || op.requireAlias || names.has(op.index)) continue;
    try {
      if (resolveWriteIndex(catalog, op.index)) continue;
      checkIndexName(op.index);
      names.add(op.index);
    } catch (error) {
      if (!(error instanceof EsError)) throw error; // reported per item by resolveTargets
    }
  }
  if (names.size === 0) return created;
  const autoCreate = (await findClusterSettings(client))['action.auto_create_index'] !== 'false';
  for (const name of [...names].sort()) {
    // A matching template's allow_auto_create overrides the cluster setting (ES AutoCreateIndex).
    const { allow, forbidden } = await templateAutoCreate(client, name);
    if (forbidden) created.set(name, forbidden);
    else if (allow === true || autoCreate) created.set(name, await autoCreateIndex(client, name));
  }
  return created;
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

async function applyOp(
  deps: WriteDeps,
  state: IndexState,
  op: WriteOp,
  options: WriteOptions,
): Promise<WriteResult> {
  const name = state.record.name;
  try {
    // The row is locked: a close committed before this write is seen here (TransportBulkAction
    // refuses each item of a closed index with index_closed_exception).
    if (state.record.closed) throw indexClosed(state.record);
    // WRITE-level blocks: write, read_only, read_only_allow_delete (403/429 per item).
    const blocks = { ...state.record.settings };
    if (state.record.blocksWrite) blocks['index.blocks.write'] = 'true';
    checkIndexBlocks([{ name, settings: blocks }], 'write');
    if (op.kind === 'update') return await applyUpdate(deps, state, op, options);
    if (op.kind === 'delete') return applyDelete(state, op, options);
    return applyIndex(state, op, options);
  } catch (error) {
    if (!(error instanceof EsError)) throw error;
    return failure(op, error, name);
  }
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
  const rows = inserted.map(({ id, doc }) => ({
    id,
    source: doc.source,
    sourceText: doc.sourceText,
    version: doc.version,
    seqNo: doc.seqNo,
    primaryTerm: doc.primaryTerm,
  }));
  if (inserted.length > 0 && indexWriter.addAlongside) {
    // The rows' COPY goes first on the writer's queue; the writer analyses the documents in parts
    // meanwhile, and writes each part while it analyses the next (index/save-in-parts.ts).
    const keys = await drawDocKeys(client, rows.length);
    await indexWriter.addAlongside(
      client,
      context,
      inserted.map(({ doc }, i) => ({ docKey: keys[i]!, source: doc.source })),
      (queue) => queue.add(() => copyDocuments(client, record.indexId, rows, keys)),
    );
  } else {
    // The rows go to Postgres first; the documents are analysed, a slice at a time, while it copies them.
    const saving = saveDocuments(client, record.indexId, rows);
    const preparing = prepareQuietly(
      indexWriter,
      context,
      inserted.map(({ doc }) => doc.source),
    );
    const keys = await saving;
    const prepared = await preparing;
    if (inserted.length > 0) {
      await indexWriter.add(
        client,
        context,
        inserted.map(({ id, doc }) => ({ docKey: keys.get(id) as string, source: doc.source })),
        prepared,
      );
    }
  }
  if (state.nextSeqNo - 1 !== record.maxSeqNo)
    await saveMaxSeqNo(client, record.indexId, state.nextSeqNo - 1);
}

/** A failed preparation is left to `add`, which analyses again and fails in its place. */
async function prepareQuietly(
  indexWriter: IndexWriter,
  context: IndexContext,
  sources: Record<string, unknown>[],
): Promise<PreparedDocuments | undefined> {
  if (sources.length === 0 || !indexWriter.prepare) return undefined;
  try {
    return await indexWriter.prepare(context, sources);
  } catch {
    return undefined;
  }
}
