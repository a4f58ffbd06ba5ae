import type { SqlParams } from '../query/compile/sql-params';

/**
 * `terminate_after` (ES "Search API › terminate_after"): each index (our shard) collects at most `n`
 * matching documents, in document order as Lucene collects them, and the search goes on over those
 * only: hits, hits.total and aggregations. `plus` keeps one more per index, to tell whether the
 * collection stopped early (Lucene stops when asked to collect the (n+1)th document).
 */
export function collectedDocs(matched: string, n: number, params: SqlParams, plus = 0): string {
  return `SELECT index_id, doc_key, s FROM (
      SELECT m.*, row_number() OVER (PARTITION BY m.index_id ORDER BY m.doc_key) AS ta FROM (${matched}) m
    ) ta WHERE ta.ta <= ${params.add(n + plus)}::bigint`;
}

/** The statement telling whether some index has more than `n` matches: `terminated_early`. */
export function terminatedEarlySql(matched: string, n: number, params: SqlParams): string {
  return `SELECT EXISTS (SELECT 1 FROM (
      SELECT index_id FROM (${collectedDocs(matched, n, params, 1)}) c GROUP BY index_id HAVING count(*) > ${params.add(n)}::bigint
    ) o) AS over`;
}
