import { listNestedPaths, scopesOf } from '../mapping/nested-mapping';
import type { IndexMapping } from '../mapping/mapping-types';
import type { IndexReader, ReaderField } from './index-reader';

/**
 * The fields the documents of one nested scope index ('' = the root documents): a nested object's
 * fields belong to its path's objects (and, with `include_in_parent`/`include_in_root`, to its
 * parent's or the root's too). Outside its scope a field is unmapped, so a query on it matches
 * nothing, as in ES where it finds only nested documents and the search keeps only root ones.
 */
export function fieldsInScope(
  all: Map<string, ReaderField>,
  mappings: IndexMapping,
  scope: string,
): Map<string, ReaderField> {
  const paths = listNestedPaths(mappings);
  if (paths.length === 0) return all;
  const out = new Map<string, ReaderField>();
  for (const [path, field] of all)
    if (scopesOf(field.nested ?? '', paths).includes(scope)) out.set(path, field);
  return out;
}

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
