import { type Router } from 'express';
import { EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import type { IndexContext } from '../index/index-writer';
import { mapDocument } from '../mapping/map-document';
import { mappingLimitsOf } from '../mapping/mapping-limits';
import {
  copyDocumentsForReindex,
  findReindexConflicts,
  saveDocumentSources,
  type ReindexCopy,
} from '../storage/documents.repo';
import { filterSource } from '../source/filter-source';
import { locatorFor } from '../http/locate-json-path';
import {
  lockIndices,
  saveMappings,
  saveMaxSeqNo,
  saveNewIndex,
  findIndicesByName,
} from '../storage/indices.repo';
import { inTransaction } from '../storage/queryable';
import { statisticsRefresherFor } from '../storage/statistics-refresher';
import { compileReindexSelection } from '../query/compile-reindex-selection';
import { parseQuery } from '../query/parse-query';
import type { Query } from '../query/query-ast';
import { parseSourceFilter } from '../query/search-request';
import { checkIndexName } from '../catalog/check-index-name';
import { newIndexUuid } from '../catalog/create-index';
import { versionConflict } from '../es-errors';
import { loadCatalog, resolveIndexExpression, resolveWriteIndex } from '../catalog/index-expression';
import { buildIndexSettings } from '../catalog/index-settings';
import type { StoreDeps } from './store-deps';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { checkIndexBlocks } from '../catalog/index-blocks';
import { scopedRouter } from '../http/scoped-router';

interface ReindexRequest {
  sourceIndex: string;
  /** `source.query`; absent (or match_all) copies every document. */
  query?: Query;
  destIndex: string;
  createOnly: boolean;
  proceedOnConflicts: boolean;
  maxDocs?: number;
  /** `source.size`: documents per batch (ES scrolls the source in batches of this size; default 1000). */
  batchSize: number;
  /** `source._source`: the copied fields; absent copies the whole source. */
  sourceFilter?: { includes: string[]; excludes: string[] };
}

/** Reads the request (ES "Reindex API" request body). */
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
  const query = source.query === undefined ? undefined : parseQuery(source.query, source, 'query');
  const conflicts = body.conflicts ?? 'abort';
  if (conflicts !== 'abort' && conflicts !== 'proceed') {
    throw new EsError(
      'illegal_argument_exception',
      `conflicts may only be "proceed" or "abort" but was [${String(conflicts)}]`,
    );
  }
  const maxDocs = checkPositiveCount('max_docs', body.max_docs ?? body.size);
  return {
    sourceIndex: sourceIndex as string,
    query: query?.kind === 'match_all' ? undefined : query,
    batchSize: checkPositiveCount('size', source.size) ?? 1000,
    sourceFilter: parseReindexSourceFilter(source._source),
    destIndex: dest.index as string,
    createOnly: dest.op_type === 'create',
    proceedOnConflicts: conflicts === 'proceed',
    maxDocs,
  };
}

function checkPositiveCount(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new EsError('x_content_parse_exception', `[reindex] failed to parse field [${name}]`);
  }
  if (value <= 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: 1: ${name === 'size' ? 'size' : 'maxDocs'} should be greater than 0 if the request is limited to some number of documents or -1 if it isn't but it was [${value}];`,
    );
  }
  return value;
}

function parseReindexSourceFilter(value: unknown): ReindexRequest['sourceFilter'] {
  const filter = parseSourceFilter(value);
  if (!filter.enabled) {
    throw new EsError('illegal_argument_exception', '[reindex] source._source cannot be false');
  }
  return filter.includes.length === 0 && filter.excludes.length === 0
    ? undefined
    : { includes: filter.includes, excludes: filter.excludes };
}

/**
 * POST /_reindex (ES "Reindex API"): copies documents from source to dest with one INSERT … SELECT
 * inside Postgres. The dest is auto-created with dynamic mapping (the source mapping is not copied);
 * the copied sources then go through dynamic mapping and the IndexWriter once, as one batch. With
 * `op_type: create` existing ids are version conflicts: 409 with the full body, or counted only with
 * `conflicts: proceed`.
 */
export function reindexRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();
  route(
    'POST',
    '/_reindex',
    'search.admin',
    'indices:data/write/reindex',
    checkParams(ROUTE_PARAMS.reindex),
    async (req, res) => {
      const started = Date.now();
      const request = parseReindex(bodyObject(req));
      const outcome = await inTransaction(deps.pool, async (client) => {
        const catalog = await loadCatalog(client);
        const sources = resolveIndexExpression(catalog, request.sourceIndex);
        // Reindex reads its sources with a search, which the READ level of a block refuses (403, nothing
        // created): checked before the destination is touched, as the scroll runs before any bulk.
        checkIndexBlocks(sources, 'read');
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
        checkIndexBlocks(
          [
            {
              name: locked.name,
              settings: {
                ...locked.settings,
                ...(locked.blocksWrite ? { 'index.blocks.write': 'true' } : {}),
              },
            },
          ],
          'write',
        );
        const sourceIndices = sources.filter((s) => s.indexId !== locked.indexId);
        const sourceIds = sourceIndices.map((s) => s.indexId);
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
          ? await findReindexConflicts(client, locked.indexId, sourceIds, undefined, matched)
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
              matched,
              excludeIds: [...rejected.keys()],
              maxDocs: request.maxDocs,
              createOnly: request.createOnly,
            },
            locked.maxSeqNo + 1,
          );
          const filter = request.sourceFilter;
          if (filter && copies.length > 0) {
            // `source._source`: the copies keep only the asked fields (one UPDATE over the new rows).
            copies = copies.map((c) => ({
              ...c,
              source: filterSource(c.source, filter.includes, filter.excludes),
            }));
            await saveDocumentSources(client, locked.indexId, copies);
          }
          mapping = locked.mappings;
          changed = false;
          const before = rejected.size;
          for (const copy of copies) {
            try {
              // The copies are re-serialised: their numbers are doubles, so no raw-number check here.
              const mapped = mapDocument(
                mapping,
                copy.source,
                copy.id,
                locatorFor(JSON.stringify(copy.source)),
                {
                  limits: mappingLimitsOf(locked.settings),
                },
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
      statisticsRefresherFor(deps.pool).noteWrites(outcome.copies.length);
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
        batches: total === 0 ? 0 : Math.ceil(total / request.batchSize),
        version_conflicts: outcome.conflicts.length,
        noops: 0,
        retries: { bulk: 0, search: 0 },
        throttled_millis: 0,
        requests_per_second: -1,
        throttled_until_millis: 0,
        failures,
      });
    },
  );
  return router;
}
