import type { Query } from '../query-ast';
import { NOTHING, type CompileContext } from './compile-context';

type Compile = (ctx: CompileContext, query: Query, boost: number, scoring: boolean) => Promise<string>;

/**
 * Reciprocal rank fusion (ES "Reciprocal rank fusion", Cormack et al. 2009): each retriever's top
 * `rank_window_size` documents by score (ties by doc key), and a document's score is the sum over the
 * retrievers that ranked it of 1 / (rank_constant + rank), rank counted from 1.
 */
export async function compileRrf(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'rrf' }>,
  boost: number,
  scoring: boolean,
  compile: Compile,
): Promise<string> {
  const { params } = ctx;
  const window = params.add(query.rankWindowSize);
  const parts: string[] = [];
  for (const child of query.retrievers) {
    const sql = await compile(ctx, child, 1, true);
    parts.push(
      `SELECT doc_key, row_number() OVER (ORDER BY s DESC, doc_key ASC) AS r
       FROM (SELECT doc_key, s FROM (${sql}) c ORDER BY s DESC, doc_key ASC LIMIT ${window}) w`,
    );
  }
  if (parts.length === 0) return NOTHING;
  const score = scoring
    ? `(sum(1.0::float8 / (${params.add(query.rankConstant)}::float8 + r)) * ${params.add(boost)}::float8)::float4`
    : '0::float4';
  return `SELECT doc_key, ${score} AS s FROM (${parts.join(' UNION ALL ')}) u GROUP BY doc_key`;
}
