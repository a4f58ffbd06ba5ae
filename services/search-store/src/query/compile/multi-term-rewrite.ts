import { NOTHING, type CompileContext } from './compile-context';
import { loadTerms, type TermStat } from './compile-term-clauses';
import { joinPostings } from '../../index/postings-reader';
import { scanTermTexts } from '../../index/term-dictionary-reader';
import type { ReaderField } from '../index-reader';
import { avgFieldLength, idf, normInverseCache, termWeight } from '../score/bm25';
import { ShardQueryError } from '../shard-query-error';

/**
 * How a multi-term query (fuzzy, regexp) turns its matching terms into a scored query: Lucene's
 * MultiTermQuery rewrite methods as ES's `rewrite` parameter names them (QueryParsers
 * .parseRewriteMethod).
 * - blended (top_terms_blended_freqs_N, FuzzyQuery's default): the N best terms; every term scored
 *   with the largest document frequency among them (BlendedTermQuery.adjustFrequencies), times its boost.
 * - top_terms_N / scoring_boolean: BM25 per term with its own frequency (N best / all).
 * - top_terms_boost_N: each matching term adds its boost (ConstantScoreQuery in a BoostQuery).
 * - constant_score (RegexpQuery's default) and constant_score_boolean: the query's boost.
 */
export type RewriteMethod =
  | { kind: 'blended' | 'top_terms' | 'top_terms_boost'; size: number }
  | { kind: 'scoring_boolean' | 'constant_score' };

const f = Math.fround;

export function parseRewriteMethod(text: string | undefined, fallback: RewriteMethod): RewriteMethod {
  if (text === undefined) return fallback;
  if (text === 'constant_score' || text === 'constant_score_boolean' || text === 'constant_score_blended')
    return { kind: 'constant_score' };
  if (text === 'scoring_boolean') return { kind: 'scoring_boolean' };
  const digit = text.search(/[0-9]/);
  if (digit >= 0) {
    const digits = text.slice(digit);
    const size = /^[0-9]{1,10}$/.test(digits) ? Number(digits) : NaN;
    const name = text.slice(0, digit);
    if (Number.isSafeInteger(size) && size <= 0x7fffffff) {
      if (name === 'top_terms_') return { kind: 'top_terms', size };
      if (name === 'top_terms_boost_') return { kind: 'top_terms_boost', size };
      if (name === 'top_terms_blended_freqs_') return { kind: 'blended', size };
    }
  }
  throw shardFailure(`Failed to parse rewrite_method [${text}]`, 'illegal_argument_exception');
}

/** ES wraps what building a Lucene query throws: query_shard_exception "failed to create query: …". */
export function shardFailure(message: string, causeType: string): ShardQueryError {
  return new ShardQueryError({
    type: 'query_shard_exception',
    reason: `failed to create query: ${message}`,
    caused_by: { type: causeType, reason: message },
  });
}

export interface ScoredTerm {
  term: string;
  boost: number;
}

/**
 * Code point order, which is UTF-8 byte order: Lucene's BytesRef order and the dictionary's "C"
 * collation (plain `<` on JS strings is UTF-16 order, which differs above U+FFFF).
 */
export function compareTerms(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i += 1;
  }
  return a.length - b.length;
}

/**
 * The terms a rewrite keeps, with their statistics: for top-N methods the N of highest boost, ties
 * to the smaller term (TopTermsRewrite's ScoreTerm order), skipping terms with no postings left.
 */
export async function selectTerms(
  ctx: CompileContext,
  field: ReaderField,
  candidates: ScoredTerm[],
  rewrite: RewriteMethod,
): Promise<{ term: ScoredTerm; stat: TermStat }[]> {
  const size = 'size' in rewrite ? rewrite.size : Infinity;
  const ordered = [...candidates].sort((a, b) => b.boost - a.boost || compareTerms(a.term, b.term));
  const kept: { term: ScoredTerm; stat: TermStat }[] = [];
  const chunk = 'size' in rewrite ? Math.max(rewrite.size, 1) : 10000;
  for (let i = 0; i < ordered.length && kept.length < size; i += chunk) {
    const slice = ordered.slice(i, i + chunk);
    const stats = await loadTerms(
      ctx,
      field,
      slice.map((t) => t.term),
    );
    for (const t of slice) {
      const stat = stats.get(t.term);
      if (stat && kept.length < size) kept.push({ term: t, stat });
    }
  }
  return kept;
}

/**
 * A BooleanQuery over clauses, each the rewritten expansion of one query term, `required` of them
 * needed (match with fuzziness builds one clause per analyzed token; fuzzy and regexp one clause).
 * Clause scores sum in double then round to float, as BooleanScorer does; so do the clauses.
 */
export function compileExpansions(
  ctx: CompileContext,
  field: ReaderField,
  clauses: { term: ScoredTerm; stat: TermStat }[][],
  rewrite: RewriteMethod,
  required: number,
  boost: number,
  scoring: boolean,
): string {
  const ids: string[] = [];
  const weights: number[] = [];
  const owners: number[] = [];
  clauses.forEach((terms, c) => {
    if (terms.length === 0) return;
    const maxDf = Math.max(...terms.map((t) => t.stat.docFreq));
    for (const { term, stat } of terms) {
      // TopTermsRewrite truncates negative boosts (fuzzy terms shorter than their edits) to 0.
      const termBoost = f(boost * Math.max(0, term.boost));
      let w: number;
      if (rewrite.kind === 'constant_score') w = f(boost);
      else if (rewrite.kind === 'top_terms_boost') w = termBoost;
      else {
        const df = rewrite.kind === 'blended' ? maxDf : stat.docFreq;
        w = termWeight(termBoost, idf(df, field.docCount));
      }
      ids.push(stat.termId);
      weights.push(w);
      owners.push(c);
    }
  });
  const present = new Set(owners).size;
  if (ids.length === 0 || present < Math.max(required, 1)) return NOTHING;
  const { params } = ctx;
  const avgdl = avgFieldLength({ docCount: field.docCount, sumTotalTermFreq: field.sumTotalTermFreq });
  let clauseScore = '0::float4';
  if (scoring && rewrite.kind === 'constant_score') clauseScore = 'max(w.w)';
  else if (scoring && rewrite.kind === 'top_terms_boost') clauseScore = 'sum(w.w::float8)::float4';
  else if (scoring)
    clauseScore = `sum((w.w - w.w / (1::float4 + p.freq::float4 * (${params.add(normInverseCache(avgdl))}::float4[])[p.norm + 1]))::float8)::float4`;
  return `SELECT doc_key, sum(cs::float8)::float4 AS s FROM (
            SELECT p.doc_key, w.c, ${clauseScore} AS cs
            FROM unnest(${params.add(ids)}::bigint[], ${params.add(weights)}::float4[], ${params.add(owners)}::int[]) AS w(term_id, w, c)
            ${joinPostings('p', `${params.add(ctx.reader.indexId)}::bigint`, 'w.term_id')}
            GROUP BY p.doc_key, w.c) x
          GROUP BY doc_key HAVING count(*) >= ${params.add(Math.max(required, 1))}`;
}

/**
 * Most dictionary terms a multi-term query walks (per field and query term). Lucene intersects the
 * automaton with the terms index and skips whole ranges; we read pages of the dictionary, narrowed
 * by the literal prefix and the possible lengths, and stop here rather than hold a connection for
 * an unbounded walk (the statement timeout bounds each page).
 */
export const MAX_SCANNED_TERMS = 1_000_000;
const PAGE = 10_000;

/** One page of a field's dictionary (index/term-dictionary-reader.ts scanTermTexts and kin). */
export type TermPageReader = (page: {
  prefix: string;
  after: string | null;
  minLength: number;
  maxLength: number;
  limit: number;
}) => Promise<string[]>;

/** The SQL path's reader: the field by id, on the search's connection. */
export function fieldTermPages(ctx: CompileContext, field: ReaderField): TermPageReader {
  return (page) => scanTermTexts(ctx.db, ctx.reader.indexId, field.fieldId!, page);
}

/** Walks the field's terms from `prefix` (lengths in code points), keeping those `accept` keeps. */
export async function walkTerms(
  read: TermPageReader,
  path: string,
  queryName: string,
  range: { prefix: string; minLength: number; maxLength: number },
  accept: (term: string) => number | undefined,
): Promise<ScoredTerm[]> {
  const out: ScoredTerm[] = [];
  let after: string | null = null;
  for (let scanned = 0; ;) {
    const page = await read({ ...range, after, limit: PAGE });
    for (const term of page) {
      const boost = accept(term);
      if (boost !== undefined) out.push({ term, boost });
    }
    if (page.length < PAGE) return out;
    scanned += page.length;
    if (scanned >= MAX_SCANNED_TERMS) {
      throw shardFailure(
        `[${queryName}] query on field [${path}] would read more than [${MAX_SCANNED_TERMS}] terms; narrow it with a literal prefix`,
        'illegal_argument_exception',
      );
    }
    after = page.at(-1)!;
  }
}
