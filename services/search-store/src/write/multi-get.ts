import { EsError } from '@acme/common';
import { readBlocked } from '../es-errors';
import { findDocumentsWithText } from '../storage/documents.repo';
import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { findSingleIndex, readVersionConflict, type FoundDocument, type ReadVersion } from './get-document';

/** One `_mget` item after validation: the index (or alias) name and the id. */
export interface MultiGetItem {
  index: string;
  id: string;
  /** The version the item expects (`version`/`version_type`): another version is its 409. */
  version?: ReadVersion;
}

/** Per item, in request order: the index and the document (absent when not found), or the item's error. */
export type MultiGetResult =
  { ok: true; index: IndexRecord; doc: FoundDocument | undefined } | { ok: false; error: EsError };

/**
 * ES "Multi get API": each item is a GET (write/get-document.ts rules: one index per name, the read block
 * refuses), but a failure belongs to its item only. Items are grouped by index name so that each index
 * costs one lookup and one SQL statement for all its ids, whatever the number of documents.
 */
export async function multiGet(db: Queryable, items: readonly MultiGetItem[]): Promise<MultiGetResult[]> {
  const byName = new Map<string, string[]>();
  for (const item of items) {
    const ids = byName.get(item.index);
    if (ids) ids.push(item.id);
    else byName.set(item.index, [item.id]);
  }
  const found = new Map<string, { index: IndexRecord; docs: Map<string, FoundDocument> } | EsError>();
  for (const [name, ids] of byName) {
    try {
      const index = await findSingleIndex(db, name);
      if (index.settings['index.blocks.read'] === 'true') throw readBlocked(index.name);
      const rows = await findDocumentsWithText(db, index.indexId, [...new Set(ids)]);
      found.set(name, { index, docs: new Map(rows.map((row) => [row.id, row])) });
    } catch (error) {
      if (!(error instanceof EsError)) throw error;
      found.set(name, error);
    }
  }
  return items.map((item) => {
    const entry = found.get(item.index) as NonNullable<ReturnType<typeof found.get>>;
    if (entry instanceof EsError) return { ok: false, error: entry };
    const doc = entry.docs.get(item.id);
    const conflict = readVersionConflict(entry.index, item.id, doc, item.version);
    if (conflict) return { ok: false, error: conflict };
    return { ok: true, index: entry.index, doc };
  });
}
