import type { Analyzer } from '../../analysis/analyzer';
import { findAnalyzer } from '../../analysis/analyzer';
import { searchAnalyzerFor } from '../../index/analyze-document';
import { NOTHING, type CompileContext } from './compile-context';
import type { ReaderField } from '../index-reader';
import { fromPostings, isSkewed, joinPostings, probePosting } from '../../index/postings-reader';
import { findTerms } from '../../index/term-dictionary-reader';
import { avgFieldLength, idf, normInverseCache, termWeight } from '../score/bm25';

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
  const rows = await findTerms(ctx.db, ctx.reader.indexId, field.fieldId, terms);
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
  const unique = [...new Set(present)];
  if (
    required === terms.length &&
    unique.length > 1 &&
    unique.length <= MAX_JOINED_TERMS &&
    isSkewed(unique.map((t) => stats.get(t)!.docFreq))
  ) {
    return compileConjunction(ctx, field, present, unique, stats, avgdl, boost, scoring);
  }
  const termIds = params.add(present.map((t) => stats.get(t)!.termId));
  const weights = params.add(
    present.map((t) => termWeight(boost, idf(stats.get(t)!.docFreq, field.docCount))),
  );
  const score = scoring
    ? `sum((w.w - w.w / (1::float4 + p.freq::float4 * (${params.add(normInverseCache(avgdl))}::float4[])[p.norm + 1]))::float8)::float4`
    : '0::float4';
  return `SELECT p.doc_key, ${score} AS s
          FROM unnest(${termIds}::bigint[], ${weights}::float4[]) AS w(term_id, w)
          ${joinPostings('p', params.add(ctx.reader.indexId), 'w.term_id')}
          GROUP BY p.doc_key HAVING count(*) >= ${params.add(Math.max(required, 1))}`;
}

const MAX_JOINED_TERMS = 8;

/**
 * Every clause required (operator and) and lists of very different lengths: the rarest list drives,
 * each other list is probed in the one block that may hold the doc, so a rare term limits the work however common the others are. A term
 * repeated in the query still counts (and scores) once per clause, as Lucene's duplicate clauses do.
 */
function compileConjunction(
  ctx: CompileContext,
  field: ReaderField,
  clauses: string[],
  unique: string[],
  stats: Map<string, TermStat>,
  avgdl: number,
  boost: number,
  scoring: boolean,
): string {
  const { params } = ctx;
  const order = [...unique].sort((a, b) => stats.get(a)!.docFreq - stats.get(b)!.docFreq);
  const alias = new Map(order.map((term, i) => [term, `p${i}`]));
  const idx = params.add(ctx.reader.indexId);
  // The rarest term's postings drive; each other term is probed in the one block that may hold the doc.
  const joins = order
    .slice(1)
    .map((term) =>
      probePosting(
        alias.get(term)!,
        `${idx}::bigint`,
        `${params.add(stats.get(term)!.termId)}::bigint`,
        'p0.doc_key',
      ),
    )
    .join(' ');
  let score = '0::float4';
  if (scoring) {
    const cache = `${params.add(normInverseCache(avgdl))}::float4[]`;
    const parts = clauses.map((term) => {
      const p = alias.get(term)!;
      const w = `${params.add(termWeight(boost, idf(stats.get(term)!.docFreq, field.docCount)))}::float4`;
      return `(${w} - ${w} / (1::float4 + ${p}.freq::float4 * (${cache})[${p}.norm + 1]))::float8`;
    });
    score = `(${parts.join(' + ')})::float4`;
  }
  return `SELECT p0.doc_key, ${score} AS s ${fromPostings('p0', joins, `${idx}::bigint`, `${params.add(stats.get(order[0]!)!.termId)}::bigint`)}`;
}

/** The analyzer a query on a text field uses: the query's `analyzer`, else the field's search analyzer. */
export function analyzerFor(ctx: CompileContext, field: ReaderField, override?: string): Analyzer {
  return override
    ? findAnalyzer(override, ctx.reader.settings)
    : searchAnalyzerFor(field, ctx.reader.settings);
}
