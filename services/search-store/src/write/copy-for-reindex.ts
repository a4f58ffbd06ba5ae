import type { PoolClient } from 'pg';
import { EsError } from '@acme/common';
import { locatorFor } from '../http/locate-json-path';
import { mapDocument } from '../mapping/map-document';
import { mappingLimitsOf } from '../mapping/mapping-limits';
import type { IndexMapping } from '../mapping/mapping-types';
import { filterSource } from '../source/filter-source';
import {
  copyDocumentsForReindex,
  saveDocumentSources,
  type MatchedKeysSql,
  type ReindexCopy,
} from '../storage/documents.repo';
import type { IndexRecord } from '../storage/indices.repo';
import { rollbackToSavepoint, setSavepoint } from '../storage/savepoint';

export interface ReindexCopyRequest {
  sourceIndexIds: string[];
  matched?: MatchedKeysSql;
  maxDocs?: number;
  createOnly: boolean;
  sourceFilter?: { includes: string[]; excludes: string[] };
}

export interface CopiedForReindex {
  copies: ReindexCopy[];
  /** The destination mapping after dynamic mapping of the copies; `changed` when it must be saved. */
  mapping: IndexMapping;
  changed: boolean;
  /** Documents the destination mapping refused, by id: reported as failures, not copied. */
  rejected: Map<string, EsError>;
}

/**
 * Copies in SQL, then checks the copies against the destination mapping. Documents the mapping refuses
 * are reported as failures; the copy is redone without them (from a savepoint, so the destination
 * documents they would have replaced stay as they were). At most three attempts.
 */
export async function copyForReindex(
  client: PoolClient,
  dest: IndexRecord,
  request: ReindexCopyRequest,
): Promise<CopiedForReindex> {
  const rejected = new Map<string, EsError>();
  let copies: ReindexCopy[] = [];
  let mapping = dest.mappings;
  let changed = false;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await setSavepoint(client, 'reindex_copy');
    copies = await copyDocumentsForReindex(
      client,
      dest.indexId,
      {
        sourceIndexIds: request.sourceIndexIds,
        matched: request.matched,
        excludeIds: [...rejected.keys()],
        maxDocs: request.maxDocs,
        createOnly: request.createOnly,
      },
      dest.maxSeqNo + 1,
    );
    const filter = request.sourceFilter;
    if (filter && copies.length > 0) {
      // `source._source`: the copies keep only the asked fields (one statement over the new rows).
      copies = copies.map((c) => ({
        ...c,
        source: filterSource(c.source, filter.includes, filter.excludes),
      }));
      await saveDocumentSources(client, dest.indexId, copies);
    }
    mapping = dest.mappings;
    changed = false;
    const before = rejected.size;
    for (const copy of copies) {
      try {
        // The copies are re-serialised: their numbers are doubles, so no raw-number check here.
        const mapped = mapDocument(mapping, copy.source, copy.id, locatorFor(JSON.stringify(copy.source)), {
          limits: mappingLimitsOf(dest.settings),
        });
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
    await rollbackToSavepoint(client, 'reindex_copy');
  }
  return { copies, mapping, changed, rejected };
}
