import type { EsError } from '@acme/common';
import { illegalArgument, indexClosed, indexNotFound, readBlocked, versionConflict } from '../es-errors';
import { loadCatalog, resolveIndexExpression } from '../catalog/index-expression';
import { findDocumentWithText, type StoredDocument } from '../storage/documents.repo';
import { findIndicesByName, type IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';

/** A document as GET returns it: the stored row and its source text byte for byte. */
export type FoundDocument = StoredDocument & { sourceText: string };

/** A GET's `version` / `version_type` (ES GetRequest): the version the caller expects. */
export interface ReadVersion {
  version: number;
  versionType: 'internal' | 'external' | 'external_gte';
}

/**
 * ES "Get API" (and get source): the index or alias must name exactly one index, not read-blocked;
 * `doc` is absent when the id is not there (the route answers ES's 404 shape). With a `version`,
 * a document at another version is a 409 (VersionType#isVersionConflictForReads: every type asks
 * for equality on reads); a missing document stays a 404.
 */
export async function getDocument(
  db: Queryable,
  name: string,
  id: string,
  expected?: ReadVersion,
): Promise<{ index: IndexRecord; doc: FoundDocument | undefined }> {
  const index = await findSingleIndex(db, name);
  if (index.settings['index.blocks.read'] === 'true') throw readBlocked(index.name);
  const doc = await findDocumentWithText(db, index.indexId, id);
  const conflict = readVersionConflict(index, id, doc, expected);
  if (conflict) throw conflict;
  return { index, doc };
}

/**
 * The 409 a read with an expected version answers when the document is at another version
 * (VersionType#isVersionConflictForReads: every type asks for equality on reads); none when the
 * document is missing or no version was given. GET throws it; each `_mget` item answers it.
 */
export function readVersionConflict(
  index: IndexRecord,
  id: string,
  doc: FoundDocument | undefined,
  expected: ReadVersion | undefined,
): EsError | undefined {
  if (!doc || !expected || doc.version === expected.version) return undefined;
  return versionConflict(
    { index: index.name, uuid: index.uuid },
    id,
    `current version [${doc.version}] is different than the one provided [${expected.version}]`,
  );
}

/** The one index a name (index or alias) stands for; ES refuses an alias to several for single-index ops. */
export async function findSingleIndex(db: Queryable, name: string): Promise<IndexRecord> {
  if (!/[,*]/.test(name)) {
    // The common case, a concrete index name: one indexed lookup instead of the whole catalog.
    const [index] = await findIndicesByName(db, [name]);
    if (index?.closed) throw indexClosed(index); // as resolveIndexExpression does below
    if (index) return index;
  }
  const catalog = await loadCatalog(db);
  const indices = resolveIndexExpression(catalog, name);
  if (indices.length === 0) throw indexNotFound(name);
  if (indices.length > 1) {
    throw illegalArgument(
      `alias [${name}] has more than one index associated with it [${indices.map((i) => i.name).join(', ')}], can't execute a single index op`,
    );
  }
  return indices[0] as IndexRecord;
}
