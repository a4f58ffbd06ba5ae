import { analyze } from '../../analysis/analyzer';
import { NOTHING, type CompileContext } from './compile-context';
import { analyzerFor, compileTermClauses, loadTerms } from './compile-term-clauses';
import { phraseFrequency } from './phrase-frequency';
import { conjunctionCandidates, joinTokens, tokenPositions, toPositions } from '../../index/postings-reader';
import { findTermsLike } from '../../index/term-dictionary-reader';
import { avgFieldLength, idfSum, normInverseCache, termScore, termWeight } from '../score/bm25';
import { SqlParams } from './sql-params';

/**
 * match_phrase_prefix (ES MultiPhrasePrefixQuery): the last term is a prefix expanded to the first
 * `max_expansions` dictionary terms in byte order. One term → a disjunction of the expansions (Lucene's
 * MultiPhraseQuery rewrite); several → a phrase whose last position accepts any expansion, scored with
 * the idf summed over every term and expansion, as MultiPhraseWeight collects them.
 */
export async function compilePhrasePrefix(
  ctx: CompileContext,
  fieldName: string,
  text: string,
  slop: number,
  maxExpansions: number,
  analyzerName: string | undefined,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const field = ctx.reader.fields.get(fieldName);
  if (!field || field.type !== 'text' || field.fieldId === undefined) return NOTHING;
  const tokens = analyze(analyzerFor(ctx, field, analyzerName), text);
  const last = tokens.at(-1);
  if (!last) return NOTHING;
  const expansions = await findTermsLike(
    ctx.db,
    ctx.reader.indexId,
    field.fieldId,
    `${last.term.replace(/[\\%_]/g, '\\$&')}%`,
    maxExpansions,
  );
  if (expansions.length === 0) return NOTHING;
  if (tokens.length === 1) {
    return compileTermClauses(
      ctx,
      field,
      expansions.map((e) => e.term),
      1,
      boost,
      scoring,
    );
  }
  const head = tokens.slice(0, -1);
  const stats = await loadTerms(ctx, field, [...new Set(head.map((t) => t.term))]);
  if (head.some((t) => !stats.has(t.term))) return NOTHING;
  // Candidates: the documents holding every head term; then the positions of the head terms and of
  // any expansion from the candidates' token streams.
  const q = new SqlParams();
  const idx = `${q.add(ctx.reader.indexId)}::bigint`;
  const ids = new Map([...stats].map(([term, stat]) => [term, `${q.add(stat.termId)}::bigint`]));
  const candidates = conjunctionCandidates(
    idx,
    [...stats].map(([term, stat]) => ({ id: ids.get(term)!, docFreq: stat.docFreq })),
  );
  const { rows } = await ctx.db.query<
    Record<string, unknown> & { doc_key: string; norm: number; last: number[] | null }
  >(
    `SELECT * FROM (
       SELECT p0.doc_key, p0.norm, ${head.map((t, i) => `${tokenPositions('dt', ids.get(t.term)!)} AS pos${i}`).join(', ')},
         (SELECT array_agg((x.pos - 1)::int4 ORDER BY x.pos) FROM unnest(dt.tokens) WITH ORDINALITY AS x(term_id, pos)
          WHERE x.term_id = ANY(${q.add(expansions.map((e) => e.term_id))}::bigint[])) AS last
       FROM (${candidates}) p0 ${joinTokens('dt', idx, `${q.add(field.fieldId)}::int`, 'p0.doc_key')}) c
     WHERE last IS NOT NULL`,
    q.values,
  );
  const offsets = tokens.map((t) => t.position - tokens[0]!.position);
  const cache = normInverseCache(
    avgFieldLength({ docCount: field.docCount, sumTotalTermFreq: field.sumTotalTermFreq }),
  );
  const dfs = [...head.map((t) => stats.get(t.term)!.docFreq), ...expansions.map((e) => e.doc_freq)];
  const weight = termWeight(boost, idfSum(dfs, field.docCount));
  const keys: string[] = [];
  const scores: number[] = [];
  for (const row of rows) {
    const positions = [...head.map((_, i) => toPositions(row[`pos${i}`] as number[] | null)), row.last!];
    const freq = phraseFrequency(positions, offsets, slop);
    if (freq > 0) {
      keys.push(row.doc_key);
      scores.push(scoring ? termScore(weight, freq, cache[row.norm]!) : 0);
    }
  }
  if (keys.length === 0) return NOTHING;
  const { params } = ctx;
  return `SELECT doc_key, s FROM unnest(${params.add(keys)}::bigint[], ${params.add(scores)}::float4[]) AS pp(doc_key, s)`;
}
