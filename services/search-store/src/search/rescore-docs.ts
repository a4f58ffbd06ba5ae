import type { Pool, PoolClient } from 'pg';
import { compileMatchedDocs } from '../query/compile/compile-matched-docs';
import type { SearchRuntimeFields } from '../query/compile/search-runtime-fields';
import type { SqlParams } from '../query/compile/sql-params';
import type { IndexReader } from '../query/index-reader';
import type { RescoreMode } from '../query/parse/parse-rescore';
import type { SearchRequest } from '../query/parse/search-request';
import { ShardQueryError } from '../query/shard-query-error';

/** `index.max_rescore_window` default (IndexSettings.MAX_RESCORE_WINDOW_SETTING). */
const DEFAULT_MAX_RESCORE_WINDOW = 10000;

/** QueryRescoreMode.combine in float arithmetic (both sides float4 in SQL). */
function combine(mode: RescoreMode, a: string, b: string): string {
  switch (mode) {
    case 'total':
      return `(${a} + ${b})`;
    case 'multiply':
      return `(${a} * ${b})`;
    case 'avg':
      return `((${a} + ${b}) / 2::float4)`;
    case 'max':
      return `GREATEST(${a}, ${b})`;
    case 'min':
      return `LEAST(${a}, ${b})`;
  }
}

/** DefaultSearchContext.preProcess: rescore needs score order and a window within the index's limit. */
function checkRescore(readers: IndexReader[], request: SearchRequest): void {
  const first = request.sort[0];
  if (request.sort.length > 0 && !(first?.kind === 'score' && first.order === 'desc')) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: 'Cannot use [sort] option in conjunction with [rescore].',
    });
  }
  for (const reader of readers) {
    const max = Number(reader.settings['index.max_rescore_window'] ?? DEFAULT_MAX_RESCORE_WINDOW);
    for (const rescore of request.rescore ?? []) {
      if (rescore.windowSize > max) {
        throw new ShardQueryError({
          type: 'illegal_argument_exception',
          reason: `Rescore window [${rescore.windowSize}] is too large. It must be less than [${max}]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.`,
        });
      }
    }
  }
}

/**
 * `rescore` (ES QueryRescorer) over the matched documents `(index_id, doc_key, s)`: per index (a
 * shard), only the top max(from + size, windows) documents by score stay candidates (the others
 * still count in hits.total but sort last, at -Infinity); each rescorer in turn, within its window
 * of the current order, combines query_weight × score with rescore_query_weight × the rescore
 * query's score when that query matches, else keeps query_weight × score, as do the candidates
 * beyond its window; all in float arithmetic, then the next rescorer sees the new order.
 */
export async function compileRescore(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  matched: string,
  params: SqlParams,
  now: number,
  runtime?: SearchRuntimeFields,
): Promise<string> {
  const rescores = request.rescore ?? [];
  if (rescores.length === 0) return matched;
  checkRescore(readers, request);
  const keep = Math.max(request.from + request.size, ...rescores.map((r) => r.windowSize));
  let current = `SELECT index_id, doc_key, s, row_number() OVER (PARTITION BY index_id ORDER BY s DESC, doc_key ASC) <= ${params.add(keep)} AS k FROM (${matched}) m0`;
  for (const rescore of rescores) {
    const rescoring = await compileMatchedDocs(
      db,
      readers,
      { query: rescore.query },
      params,
      now,
      true,
      runtime,
    );
    const weighted = `(b.s * ${params.add(rescore.queryWeight)}::float4)`;
    const secondary = `(x.s * ${params.add(rescore.rescoreQueryWeight)}::float4)`;
    current = `SELECT b.index_id, b.doc_key, b.k,
        CASE WHEN b.k AND b.r <= ${params.add(rescore.windowSize)} AND x.doc_key IS NOT NULL
          THEN ${combine(rescore.scoreMode, weighted, secondary)} ELSE ${weighted} END AS s
      FROM (SELECT c.*, row_number() OVER (PARTITION BY c.index_id ORDER BY c.k DESC, c.s DESC, c.doc_key ASC) AS r
            FROM (${current}) c) b
      LEFT JOIN (${rescoring}) x ON x.index_id = b.index_id AND x.doc_key = b.doc_key`;
  }
  return `SELECT index_id, doc_key, CASE WHEN k THEN s ELSE '-Infinity'::float4 END AS s FROM (${current}) rescored`;
}
