import type { Pool, PoolClient } from 'pg';

/**
 * SQL over `nested_docs` (migration 0018) for the query side: a nested path's objects, an object's
 * ancestor at the scope a nested query runs in, and the root documents among a plan's doc keys.
 * Arguments are SQL expressions (bind placeholders); the results are relations.
 */

/** The nested objects at a path, as `(doc_key)`. */
export function nestedDocsAt(indexId: string, path: string): string {
  return `SELECT doc_key FROM nested_docs WHERE index_id = ${indexId} AND path = ${path}`;
}

/**
 * `(parent_key, doc_key, s)`: each row of a plan over a path's objects with the object's ancestor
 * `up` levels above it (1: the object it sits in), or its root document (`up` = 'root'). Doc keys of
 * other paths (deeper objects that include their fields in their parent) find no row and drop out.
 */
export function withAncestor(indexId: string, plan: string, path: string, up: number | 'root'): string {
  const joins = [
    `JOIN nested_docs n0 ON n0.index_id = ${indexId} AND n0.doc_key = c.doc_key AND n0.path = ${path}`,
  ];
  const hops = up === 'root' ? 1 : up;
  for (let i = 1; i < hops; i++)
    joins.push(
      `JOIN nested_docs n${i} ON n${i}.index_id = ${indexId} AND n${i}.doc_key = n${i - 1}.parent_key`,
    );
  const key = up === 'root' ? 'n0.root_key' : `n${hops - 1}.parent_key`;
  return `SELECT ${key} AS parent_key, c.doc_key, c.s FROM (${plan}) c ${joins.join(' ')}`;
}

/** A plan's rows whose doc key is a document's, not a nested object's (fields shared by include_in_*). */
export function onlyRootDocs(indexId: string, plan: string): string {
  return `SELECT r.doc_key, r.s FROM (${plan}) r
          WHERE NOT EXISTS (SELECT 1 FROM nested_docs n WHERE n.index_id = ${indexId} AND n.doc_key = r.doc_key)`;
}

/** Where a document's nested objects sit: doc key → its parent's key, path and offset. */
export interface NestedDocPlace {
  parentKey: string;
  path: string;
  offset: number;
}

/** The nested objects of some documents (inner hits name each by its chain of paths and offsets). */
export async function loadNestedPlaces(
  db: Pool | PoolClient,
  indexId: string,
  rootKeys: string[],
): Promise<Map<string, NestedDocPlace>> {
  const { rows } = await db.query<{ doc_key: string; parent_key: string; path: string; offset: number }>(
    `SELECT doc_key, parent_key, path, "offset" FROM nested_docs WHERE index_id = $1 AND root_key = ANY($2::bigint[])`,
    [indexId, rootKeys],
  );
  return new Map(
    rows.map((r) => [String(r.doc_key), { parentKey: String(r.parent_key), path: r.path, offset: r.offset }]),
  );
}

/**
 * `(parent_key, doc_key)`: the objects at a path of the given indices with their ancestor `up` levels
 * above (1: the object they sit in) or their root document (`up` = 'root'). Aggregations join their
 * documents to it one way (`nested`) or the other (`reverse_nested`).
 */
export function nestedBelow(indexIds: string, path: string, up: number | 'root'): string {
  const hops = up === 'root' ? 1 : up;
  const joins: string[] = [];
  for (let i = 1; i < hops; i++)
    joins.push(
      `JOIN nested_docs n${i} ON n${i}.index_id = n0.index_id AND n${i}.doc_key = n${i - 1}.parent_key`,
    );
  const key = up === 'root' ? 'n0.root_key' : `n${hops - 1}.parent_key`;
  return `SELECT ${key} AS parent_key, n0.doc_key FROM nested_docs n0 ${joins.join(' ')}
          WHERE n0.index_id = ANY(${indexIds}) AND n0.path = ${path}`;
}

/**
 * A document's sort value from its nested objects at a path (ES nested sort): `agg` (SQL, over
 * `v.<column>`) of the field's doc values of those objects, only the ones in `within` (a relation of
 * doc keys) when given.
 */
export function nestedDocValueOf(
  agg: string,
  column: 'num' | 'kw',
  indexId: string,
  docKey: string,
  fieldId: string,
  path: string,
  within?: string,
): string {
  const filter = within === undefined ? '' : ` AND n.doc_key IN (${within})`;
  return `(SELECT ${agg} FROM nested_docs n JOIN doc_values v ON v.index_id = n.index_id AND v.doc_key = n.doc_key AND v.field_id = ${fieldId}
           WHERE n.index_id = ${indexId} AND n.root_key = ${docKey} AND n.path = ${path}${filter})`;
}
