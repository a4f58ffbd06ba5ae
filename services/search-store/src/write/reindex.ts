import type { EsError } from '@acme/common';
import { checkIndexBlocks } from '../catalog/index-blocks';
import { loadCatalog, resolveIndexExpression, resolveWriteIndex } from '../catalog/index-expression';
import { versionConflict } from '../es-errors';
import type { IndexContext } from '../index/index-writer';
import { compileReindexSelection } from '../query/compile/compile-reindex-selection';
import { findReindexConflicts } from '../storage/documents.repo';
import { saveMappings, saveMaxSeqNo } from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { statisticsRefresherFor } from '../storage/statistics-refresher';
import { copyForReindex } from './copy-for-reindex';
import type { WriteDeps } from './index-state';
import { openReindexDestination } from './open-reindex-destination';
import { checkReindexTargets, type ReindexRequest } from './reindex-request';

/** A document reindex did not copy: refused by the destination mapping, or a create conflict. */
export interface ReindexFailure {
  index: string;
  id: string;
  error: EsError;
}

/** What ES's BulkByScrollResponse counts (the route renders it). */
export interface ReindexOutcome {
  total: number;
  created: number;
  updated: number;
  versionConflicts: number;
  batches: number;
  /** Mapping failures first, then version conflicts (unless `conflicts: proceed`). */
  failures: ReindexFailure[];
}

/**
 * ES "Reindex API": copies documents from source to dest with one INSERT … SELECT inside Postgres, in
 * one transaction. The dest is auto-created with dynamic mapping (the source mapping is not copied);
 * the copied sources then go through dynamic mapping and the IndexWriter once, as one batch. With
 * `op_type: create` existing ids are version conflicts: failures, or counted only with
 * `conflicts: proceed`.
 */
export async function reindex(
  deps: Pick<WriteDeps, 'pool' | 'indexWriter'>,
  request: ReindexRequest,
): Promise<ReindexOutcome> {
  const outcome = await inTransaction(deps.pool, async (client) => {
    const catalog = await loadCatalog(client);
    const destIsAlias = catalog.aliases.some((a) => a.alias === request.destIndex);
    checkReindexTargets([], undefined, request.destIndex, destIsAlias, request.requireAlias);
    const sources = resolveIndexExpression(catalog, request.sourceIndex);
    checkReindexTargets(
      sources.map((s) => s.name),
      resolveWriteIndex(catalog, request.destIndex)?.name,
      request.destIndex,
      destIsAlias,
      false,
    );
    // Reindex reads its sources with a search, which the READ level of a block refuses (403, nothing
    // created): checked before the destination is touched, as the scroll runs before any bulk.
    checkIndexBlocks(sources, 'read');
    const dest = await openReindexDestination(client, catalog, request.destIndex);
    const sourceIndices = sources.filter((s) => s.indexId !== dest.indexId);
    const sourceIndexIds = sourceIndices.map((s) => s.indexId);
    const matched = request.query
      ? await compileReindexSelection(
          client,
          sourceIndices.map((s) => ({
            index_id: s.indexId,
            name: s.name,
            uuid: s.uuid,
            mappings: s.mappings,
            settings: s.settings,
          })),
          request.query,
        )
      : undefined;
    const conflicts = request.createOnly
      ? await findReindexConflicts(client, dest.indexId, sourceIndexIds, undefined, matched)
      : [];
    const { copies, mapping, changed, rejected } = await copyForReindex(client, dest, {
      sourceIndexIds,
      matched,
      maxDocs: request.maxDocs,
      createOnly: request.createOnly,
      sourceFilter: request.sourceFilter,
    });
    if (changed) await saveMappings(client, dest.indexId, mapping);
    const context: IndexContext = {
      indexId: dest.indexId,
      name: dest.name,
      mappings: mapping,
      settings: dest.settings,
    };
    const replaced = copies.map((c) => c.oldDocKey).filter((k): k is string => k !== null);
    if (replaced.length > 0) {
      // The copy statement already deleted the replaced rows; their postings go now.
      await deps.indexWriter.remove(client, context, replaced);
    }
    if (copies.length > 0) {
      await deps.indexWriter.add(
        client,
        context,
        copies.map((c) => ({ docKey: c.docKey, source: c.source })),
      );
      await saveMaxSeqNo(client, dest.indexId, dest.maxSeqNo + copies.length);
    }
    return { dest, copies: copies.length, replaced: replaced.length, conflicts, rejected };
  });
  statisticsRefresherFor(deps.pool).noteWrites(outcome.copies);
  const { dest } = outcome;
  const conflictFailures = request.proceedOnConflicts
    ? []
    : outcome.conflicts.map((c) => ({
        index: dest.name,
        id: c.id,
        error: versionConflict(
          { index: dest.name, uuid: dest.uuid },
          c.id,
          `document already exists (current version [${c.version}])`,
        ),
      }));
  const mappingFailures = [...outcome.rejected].map(([id, error]) => ({ index: dest.name, id, error }));
  const total = outcome.copies + outcome.conflicts.length + outcome.rejected.size;
  return {
    total,
    created: outcome.copies - outcome.replaced,
    updated: outcome.replaced,
    versionConflicts: outcome.conflicts.length,
    batches: total === 0 ? 0 : Math.ceil(total / request.batchSize),
    failures: [...mappingFailures, ...conflictFailures],
  };
}
