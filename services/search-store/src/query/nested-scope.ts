import type { IndexReader } from './index-reader';
import { fieldsInScope } from './fields-in-scope';

/** The reader a `nested` query's inner query compiles with: the path's objects are its documents. */
export function nestedScopeReader(reader: IndexReader, path: string): IndexReader {
  const all = reader.allFields ?? reader.fields;
  return { ...reader, fields: fieldsInScope(all, reader.mappings, path), nestedScope: path };
}

/**
 * Whether the root scope shares fields with nested objects (`include_in_parent`/`include_in_root`):
 * then those fields' postings hold nested objects' doc keys too, which a root search must drop.
 */
export function rootSharesNestedFields(reader: IndexReader): boolean {
  if (reader.nestedScope !== undefined) return false;
  for (const field of reader.fields.values()) if (field.nested !== undefined) return true;
  return false;
}

/**
 * The reader a `filter`/`filters` aggregation's query compiles with: every field, nested ones too,
 * since it only narrows the aggregation's own documents, which are nested objects inside a `nested`
 * aggregation (whose filters name the objects' fields) and documents elsewhere (where the objects'
 * doc keys it may find match none of them).
 */
export function everyFieldReader(reader: IndexReader): IndexReader {
  return reader.allFields ? { ...reader, fields: reader.allFields } : reader;
}
