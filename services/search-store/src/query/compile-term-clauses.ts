import type { Analyzer } from '../analysis/analyzer';
import { findAnalyzer } from '../analysis/analyzer';
import { searchAnalyzerFor } from '../index/analyze-document';
import { NOTHING, type CompileContext } from './compile-context';
import type { ReaderField } from './index-reader';
import { avgFieldLength, idf, normInverseCache, termWeight } from './score/bm25';

export interface TermStat {
  termId: string;
  docFreq: number;
}

export async function loadTerms(
  ctx: CompileContext,
  field: ReaderField,
  terms: string[],
): Promise<Map<string, TermStat>> {
  if (field.fieldId === undefined || terms.length === 0) return new Map();
  const { rows } = await ctx.db.query<{ term: string; term_id: string; doc_freq: number }>(
    'SELECT term, term_id, doc_freq FROM terms WHERE index_id = $1 AND field_id = $2 AND term = ANY($3::text[])',
    [ctx.reader.indexId, field.fieldId, terms],
  );
  return new Map(rows.map((r) => [r.term, { termId: r.term_id, docFreq: r.doc_freq }]));
}

/**
 * A BooleanQuery of BM25 term clauses on one field, `required` of them needed: what `match` builds.
 * Duplicated terms stay separate clauses, as in Lucene (each scores and counts).
 */
export async function compileTermClauses(
  ctx: CompileContext,
  field: ReaderField,
  terms: string[],
  required: number,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const stats = await loadTerms(ctx, field, [...new Set(terms)]);
  const present = terms.filter((t) => stats.has(t));
  if (present.length < required || present.length === 0) return NOTHING;
  const { params } = ctx;
  const avgdl = avgFieldLength({ docCount: field.docCount, sumTotalTermFreq: field.sumTotalTermFreq });
  const termIds = params.add(present.map((t) => stats.get(t)!.termId));
  const weights = params.add(
    present.map((t) => termWeight(boost, idf(stats.get(t)!.docFreq, field.docCount))),
  );
  const score = scoring
    ? `sum((w.w - w.w / (1::float4 + p.freq::float4 * (${params.add(normInverseCache(avgdl))}::float4[])[p.norm + 1]))::float8)::float4`
    : '0::float4';
  return `SELECT p.doc_key, ${score} AS s
          FROM unnest(${termIds}::bigint[], ${weights}::float4[]) AS w(term_id, w)
          JOIN postings p ON p.index_id = ${params.add(ctx.reader.indexId)} AND p.term_id = w.term_id
          GROUP BY p.doc_key HAVING count(*) >= ${params.add(Math.max(required, 1))}`;
}

/** The analyzer a query on a text field uses: the query's `analyzer`, else the field's search analyzer. */
export function analyzerFor(ctx: CompileContext, field: ReaderField, override?: string): Analyzer {
  return override
    ? findAnalyzer(override, ctx.reader.settings)
    : searchAnalyzerFor(field, ctx.reader.settings);
}
