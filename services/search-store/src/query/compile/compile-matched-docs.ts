import type { Pool, PoolClient } from 'pg';
import { compileQuery } from './compile-query';
import { onlyRootDocs } from '../../index/nested-docs-reader';
import { rootSharesNestedFields } from '../nested-scope';
import type { IndexReader } from '../index-reader';
import type { Query } from '../query-ast';
import type { SearchRequest } from '../parse/search-request';
import type { SearchRuntimeFields } from './search-runtime-fields';
import type { SqlParams } from './sql-params';

/** The matched documents of all target indices as one SQL: `(index_id, doc_key, s)`. */
export async function compileMatchedDocs(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: Pick<SearchRequest, 'query' | 'minScore' | 'indexBoosts'>,
  params: SqlParams,
  now: number,
  scoring = true,
  runtime?: SearchRuntimeFields,
): Promise<string> {
  if (readers.length === 0)
    return 'SELECT NULL::bigint AS index_id, NULL::bigint AS doc_key, NULL::float4 AS s WHERE false';
  const parts: string[] = [];
  for (const reader of readers) {
    const query: Query = reader.filter
      ? { kind: 'bool', must: [request.query], filter: [reader.filter], should: [], mustNot: [], boost: 1 }
      : request.query;
    // indices_boost: ES wraps the index's query in a BoostQuery (search/indices-boost.ts).
    const boost = request.indexBoosts?.get(reader.indexId) ?? 1;
    const compiled = await compileQuery({ db, reader, params, now, runtime }, query, boost, scoring);
    const sql = rootSharesNestedFields(reader)
      ? onlyRootDocs(`${params.add(reader.indexId)}::bigint`, compiled)
      : compiled;
    parts.push(
      `SELECT ${params.add(reader.indexId)}::bigint AS index_id, doc_key, s FROM (${sql}) r${parts.length}`,
    );
  }
  const union = parts.join(' UNION ALL ');
  return request.minScore === undefined
    ? union
    : `SELECT * FROM (${union}) ms WHERE s >= ${params.add(request.minScore)}::float4`;
}
