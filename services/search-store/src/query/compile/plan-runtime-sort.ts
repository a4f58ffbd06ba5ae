import type { Pool, PoolClient } from 'pg';
import { embedSql } from './embed-sql';
import type { IndexReader } from '../index-reader';
import type { SortKey } from '../parse/search-request';
import type { SearchRuntimeFields } from './search-runtime-fields';
import type { SqlParams } from './sql-params';

export interface RuntimeSortKey {
  /** SQL over the page query's `q` row giving the key's value (NULL when the document has none). */
  expression: string;
  type: string;
}

/**
 * Sort keys on runtime fields (ES "Runtime fields": sortable like mapped ones): each index's
 * `(doc_key, v)` relation is folded once per statement into a jsonb map doc_key → min or max value (an
 * uncorrelated subquery Postgres evaluates once), so each row's key is a lookup rather than a scan.
 * The script runs only for the documents the query matched (`matched`: the statement's matches as SQL
 * over `params`, with index_id and doc_key), as Elasticsearch evaluates a sort's runtime field per hit.
 */
export async function planRuntimeSort(
  db: Pool | PoolClient,
  readers: IndexReader[],
  runtime: SearchRuntimeFields | undefined,
  keys: SortKey[],
  params: SqlParams,
  matched: string,
): Promise<Map<number, RuntimeSortKey>> {
  const planned = new Map<number, RuntimeSortKey>();
  if (!runtime) return planned;
  for (const [i, key] of keys.entries()) {
    if (key.kind !== 'field' || !runtime.types.has(key.field)) continue;
    const type = runtime.types.get(key.field)!;
    const agg = (key.mode ?? (key.order === 'asc' ? 'min' : 'max')) === 'min' ? 'min' : 'max';
    const cases: string[] = [];
    for (const reader of readers) {
      // The matches' SQL refers to params $1…$n as they stand; the index id goes after them.
      const values = [...params.values, reader.indexId];
      const relation = await runtime.relation(db, reader, key.field, {
        sql: `SELECT m.doc_key FROM (${matched}) m WHERE m.index_id = $${values.length}::bigint`,
        params: values,
      });
      const from = embedSql(params, relation.text, relation.values);
      cases.push(
        `WHEN ${params.add(reader.indexId)}::bigint THEN (SELECT jsonb_object_agg(x.doc_key::text, x.v) FROM (SELECT rt.doc_key, ${agg}(rt.v) AS v FROM (${from}) rt GROUP BY rt.doc_key) x) ->> q.doc_key::text`,
      );
    }
    const lookup = cases.length === 0 ? 'NULL' : `CASE q.index_id ${cases.join(' ')} END`;
    planned.set(i, { expression: `(${lookup})::${type === 'keyword' ? 'text' : 'float8'}`, type });
  }
  return planned;
}
