import { Router } from 'express';
import { EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import type { IndexContext } from '../index/index-writer';
import { mapDocument } from '../mapping/map-document';
import { copyDocumentsForReindex, findReindexConflicts, type ReindexCopy } from '../storage/documents.repo';
import { locatorFor } from '../http/locate-json-path';
import {
  lockIndices,
  saveMappings,
  saveMaxSeqNo,
  saveNewIndex,
  findIndicesByName,
} from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { checkIndexName } from './check-index-name';
import { newIndexUuid } from './create-index';
import { versionConflict, writeBlocked } from './es-errors';
import { loadCatalog, resolveIndexExpression, resolveWriteIndex } from './index-expression';
import { buildIndexSettings } from './index-settings';
import type { StoreDeps } from './store-deps';

interface ReindexRequest {
  sourceIndex: string;
  ids?: string[];
  destIndex: string;
  createOnly: boolean;
  proceedOnConflicts: boolean;
  maxDocs?: number;
}

/** Reads the request; source.query is limited to match_all and ids for now (see DESIGN.md). */
function parseReindex(body: Record<string, unknown>): ReindexRequest {
  const source = (body.source ?? {}) as Record<string, unknown>;
  const dest = (body.dest ?? {}) as Record<string, unknown>;
  const errors: string[] = [];
  const sourceIndex = Array.isArray(source.index) ? source.index.join(',') : source.index;
  if (typeof sourceIndex !== 'string' || sourceIndex === '')
    errors.push('use _all if you really want to copy from all existing indexes');
  if (typeof dest.index !== 'string' || dest.index === '') errors.push('index must be specified');
  if (body.script !== undefined)
    throw new EsError('illegal_argument_exception', 'script support is not available');
  if (errors.length > 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: ${errors.map((e, i) => `${i + 1}: ${e};`).join('')}`,
    );
  }
  let ids: string[] | undefined;
  const query = source.query as Record<string, unknown> | undefined;
  if (query !== undefined) {
    const [kind] = Object.keys(query);
    if (kind === 'ids') ids = ((query.ids as { values?: unknown[] }).values ?? []).map(String);
    else if (kind !== 'match_all') {
      throw new EsError(
        'illegal_argument_exception',
        `[reindex] source.query supports only [match_all] and [ids] here, found [${kind}]`,
      );
    }
  }
  const conflicts = body.conflicts ?? 'abort';
  if (conflicts !== 'abort' && conflicts !== 'proceed') {
    throw new EsError(
      'illegal_argument_exception',
      `conflicts may only be "proceed" or "abort" but was [${String(conflicts)}]`,
    );
  }
  const maxDocs = body.max_docs ?? body.size;
  return {
    sourceIndex: sourceIndex as string,
    ids,
    destIndex: dest.index as string,
    createOnly: dest.op_type === 'create',
    proceedOnConflicts: conflicts === 'proceed',
    maxDocs: typeof maxDocs === 'number' ? maxDocs : undefined,
  };
}

/**
 * POST /_reindex (ES "Reindex API"): copies documents from source to dest with one INSERT … SELECT
 * inside Postgres. The dest is auto-created with dynamic mapping (the source mapping is not copied);
 * the copied sources then go through dynamic mapping and the IndexWriter once, as one batch. With
 * `op_type: create` existing ids are version conflicts: 409 with the full body, or counted only with
 * `conflicts: proceed`.
 */
export function reindexRouter(deps: StoreDeps): Router {
  const router = Router();
  router.post('/_reindex', async (req, res) => {
    const started = Date.now();
    const request = parseReindex(bodyObject(req));
    const outcome = await inTransaction(deps.pool, async (client) => {
      const catalog = await loadCatalog(client);
      const sources = resolveIndexExpression(catalog, request.sourceIndex);
      let dest = resolveWriteIndex(catalog, request.destIndex);
      if (!dest) {
        checkIndexName(request.destIndex);
        const uuid = newIndexUuid();
        dest =
          (await saveNewIndex(client, {
            name: request.destIndex,
            uuid,
            mappings: {},
            settings: buildIndexSettings(request.destIndex, uuid, {}),
            blocksWrite: false,
          })) ?? (await findIndicesByName(client, [request.destIndex]))[0];
      }
      if (!dest) throw new EsError('exception', 'reindex destination could not be created');
      const [locked] = await lockIndices(client, [dest.indexId]);
      if (!locked) throw new EsError('exception', 'reindex destination vanished');
      if (locked.blocksWrite) throw writeBlocked(locked.name);
      const sourceIds = sources.map((s) => s.indexId).filter((id) => id !== locked.indexId);
      const conflicts = request.createOnly
        ? await findReindexConflicts(client, locked.indexId, sourceIds, request.ids)
        : [];
      // Copy in SQL, then check the copies against the destination mapping. Documents the mapping
      // refuses are reported as failures; the copy is redone without them (from a savepoint, so the
      // destination documents they would have replaced stay as they were).
      const rejected = new Map<string, EsError>();
      let copies: ReindexCopy[] = [];
      let mapping = locked.mappings;
      let changed = false;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await client.query('SAVEPOINT reindex_copy');
        copies = await copyDocumentsForReindex(
          client,
          locked.indexId,
          {
            sourceIndexIds: sourceIds,
            ids: request.ids,
            excludeIds: [...rejected.keys()],
            maxDocs: request.maxDocs,
            createOnly: request.createOnly,
          },
          locked.maxSeqNo + 1,
        );
        mapping = locked.mappings;
        changed = false;
        const before = rejected.size;
        for (const copy of copies) {
          try {
            const mapped = mapDocument(
              mapping,
              copy.source,
              copy.id,
              locatorFor(JSON.stringify(copy.source)),
            );
            if (mapped.changed) {
              mapping = mapped.mapping;
              changed = true;
            }
          } catch (error) {
            if (!(error instanceof EsError)) throw error;
            rejected.set(copy.id, error);
          }
        }
        if (rejected.size === before) break;
        await client.query('ROLLBACK TO SAVEPOINT reindex_copy');
      }
      if (changed) await saveMappings(client, locked.indexId, mapping);
      const context: IndexContext = {
        indexId: locked.indexId,
        name: locked.name,
        mappings: mapping,
        settings: locked.settings,
      };
      const replaced = copies.map((c) => c.oldDocKey).filter((k): k is string => k !== null);
      if (replaced.length > 0) {
        // The statement above already deleted the replaced rows; their postings go now.
        await deps.indexWriter.remove(client, context, replaced);
      }
      if (copies.length > 0) {
        await deps.indexWriter.add(
          client,
          context,
          copies.map((c) => ({ docKey: c.docKey, source: c.source })),
        );
        await saveMaxSeqNo(client, locked.indexId, locked.maxSeqNo + copies.length);
      }
      return { dest: locked, copies, replaced: replaced.length, conflicts, rejected };
    });
    const created = outcome.copies.length - outcome.replaced;
    const conflictFailures = request.proceedOnConflicts
      ? []
      : outcome.conflicts.map((c) => ({
          index: outcome.dest.name,
          id: c.id,
          cause: versionConflict(
            { index: outcome.dest.name, uuid: outcome.dest.uuid },
            c.id,
            `document already exists (current version [${c.version}])`,
          ).toCause(),
          status: 409,
        }));
    const mappingFailures = [...outcome.rejected].map(([id, error]) => ({
      index: outcome.dest.name,
      id,
      cause: error.toCause(),
      status: error.status,
    }));
    const failures = [...mappingFailures, ...conflictFailures];
    const total = outcome.copies.length + outcome.conflicts.length + outcome.rejected.size;
    res.status(failures[0]?.status ?? 200).json({
      took: Date.now() - started,
      timed_out: false,
      total,
      updated: outcome.replaced,
      created,
      deleted: 0,
      batches: total === 0 ? 0 : Math.ceil(total / 1000),
      version_conflicts: outcome.conflicts.length,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures,
    });
  });
  return router;
}
