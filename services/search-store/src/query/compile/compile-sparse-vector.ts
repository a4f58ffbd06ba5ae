import { sparseScores } from '../../index/sparse-features';
import { findTerms } from '../../index/term-dictionary-reader';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import { NOTHING, type CompileContext } from './compile-context';

/**
 * The sparse_vector query with a query_vector (ES "Sparse vector query"): per token, the documents'
 * postings with their weights in the freqs (index/sparse-features.ts), as Lucene's FeatureField
 * linear queries; the score is Σ query weight × stored weight, × boost, over the documents holding
 * any of the tokens. One dictionary lookup, then one aggregate over the tokens' postings.
 */
export async function compileSparseVector(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'sparse_vector' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const field = ctx.reader.fields.get(query.field);
  if (!field) return NOTHING;
  if (field.type !== 'sparse_vector') {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `field [${query.field}] must be type [sparse_vector] but is type [${field.type}]`,
    });
  }
  if (field.fieldId === undefined || query.weights.size === 0) return NOTHING;
  const rows = await findTerms(ctx.db, ctx.reader.indexId, field.fieldId, [...query.weights.keys()]);
  if (rows.length === 0) return NOTHING;
  const { params } = ctx;
  return sparseScores(
    `${params.add(ctx.reader.indexId)}::bigint`,
    `${params.add(rows.map((r) => r.term_id))}::bigint[]`,
    `${params.add(rows.map((r) => query.weights.get(r.term)!))}::float8[]`,
    `${params.add(scoring ? boost : 0)}::float8`,
  );
}
