import type { Pool, PoolClient } from 'pg';
import { findFieldStats } from '../index/field-stats-reader';
import { listIndexedFields, type IndexedField } from '../index/indexed-fields';
import type { IndexMapping } from '../mapping/mapping-types';
import { parseQuery } from './parse/parse-query';
import type { Query } from './query-ast';
import { simpleMatcher } from '../text/simple-match';
import { fieldsInScope } from './fields-in-scope';

/** What a query needs about one index: its mapped fields, their ids and statistics. */
export interface IndexReader {
  indexId: string;
  name: string;
  uuid: string;
  mappings: IndexMapping;
  settings: Record<string, unknown>;
  fields: Map<string, ReaderField>;
  /**
   * Every mapped field, those of nested objects included; `fields` holds those the documents of the
   * reader's scope index (nested-scope.ts: the root documents, or one nested path's objects).
   */
  allFields?: Map<string, ReaderField>;
  /** The nested path whose objects this reader searches (inside a `nested` query); absent at the root. */
  nestedScope?: string;
  /** The filter of the alias the search reached this index through, if any. */
  filter?: Query;
}

export interface ReaderField extends IndexedField {
  /** Absent until a document has a value in the field. */
  fieldId?: number;
  docCount: number;
  sumTotalTermFreq: number;
}

export interface IndexRow {
  index_id: string;
  name: string;
  uuid: string;
  mappings: IndexMapping;
  settings: Record<string, unknown>;
  aliasFilter?: unknown;
}

/**
 * A reader over one index's mapped fields, with no statistics yet (docCount 0): what the fast path
 * needs from the catalog row alone (search/fast-match/open-mapping-readers.ts) and what
 * openIndexReaders fills with field ids and statistics.
 */
export function mappingReader(index: IndexRow): IndexReader {
  const allFields = new Map<string, ReaderField>();
  for (const field of listIndexedFields(index.mappings))
    allFields.set(field.path, { ...field, docCount: 0, sumTotalTermFreq: 0 });
  const reader: IndexReader = {
    indexId: index.index_id,
    name: index.name,
    uuid: index.uuid,
    mappings: index.mappings,
    settings: index.settings,
    fields: fieldsInScope(allFields, index.mappings, ''),
    allFields,
  };
  if (index.aliasFilter) reader.filter = parseQuery(index.aliasFilter);
  return reader;
}

/** Loads field ids and statistics for the indices a search runs on (one round trip). */
export async function openIndexReaders(db: Pool | PoolClient, indices: IndexRow[]): Promise<IndexReader[]> {
  if (indices.length === 0) return [];
  const rows = await findFieldStats(
    db,
    indices.map((i) => i.index_id),
  );
  return indices.map((index) => {
    const reader = mappingReader(index);
    for (const row of rows) {
      if (row.index_id !== index.index_id) continue;
      const field = (reader.allFields ?? reader.fields).get(row.path);
      if (!field) continue;
      field.fieldId = row.field_id;
      field.docCount = Number(row.doc_count ?? 0);
      field.sumTotalTermFreq = Number(row.sttf ?? 0);
    }
    return reader;
  });
}

/** Field paths matching a pattern with `*` wildcards (multi_match `fields`, `_source`, `fields`). */
export function matchFieldPattern(pattern: string): (path: string) => boolean {
  return simpleMatcher(pattern);
}
