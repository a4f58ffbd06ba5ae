import type { Pool, PoolClient } from 'pg';
import { compileInnerMatches } from '../../query/compile/compile-nested';
import { compileQuery } from '../../query/compile/compile-query';
import { SqlParams } from '../../query/compile/sql-params';
import type { IndexReader } from '../../query/index-reader';
import type { NestedQuery } from '../../query/nested-query';
import { nestedScopeReader } from '../../query/nested-scope';
import type { Query } from '../../query/query-ast';
import { formatFloat } from '../../query/score/bm25';

interface Explanation {
  value: number;
  description: string;
  details: Explanation[];
}

/** Lucene's ScoreMode names as its explanation prints them. */
const MODE_NAMES = { avg: 'Avg', sum: 'Total', max: 'Max', min: 'Min', none: 'None' } as const;

/**
 * Lucene's BlockJoinScorer#explain for a nested query: how many of the document's objects matched,
 * and the explanation of the best one (the lowest under score mode min). The range is the matching
 * objects' positions, Lucene's being doc ids of its block.
 */
export async function explainNested(
  db: Pool | PoolClient,
  reader: IndexReader,
  docKey: string,
  now: number,
  query: NestedQuery<Query>,
  boost: number,
  value: number,
  explainChild: (
    reader: IndexReader,
    docKey: string,
    query: Query,
    boost: number,
  ) => Promise<Explanation | undefined>,
): Promise<Explanation> {
  const params = new SqlParams();
  const sql = await compileInnerMatches({ db, reader, params, now }, query, [docKey], compileQuery);
  const rows =
    sql === undefined
      ? []
      : (await db.query<{ doc_key: string }>(`SELECT doc_key FROM (${sql}) m ORDER BY rn`, params.values))
          .rows;
  const best = query.scoreMode === 'min' ? rows[rows.length - 1] : rows[0];
  const child = best
    ? await explainChild(nestedScopeReader(reader, query.path), String(best.doc_key), query.query, boost)
    : undefined;
  return {
    value: formatFloat(value),
    description: `Score based on ${rows.length} child docs in range from 0 to ${Math.max(rows.length - 1, 0)}, using score mode ${MODE_NAMES[query.scoreMode]}`,
    details: child ? [child] : [],
  };
}
