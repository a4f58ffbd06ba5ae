import { analyze } from '../../analysis/analyzer';
import { NOTHING, type CompileContext } from './compile-context';
import { analyzerFor, compileTermClauses, loadTerms } from './compile-term-clauses';
import { compileTerms } from './compile-term-level';
import { phraseFrequency } from './phrase-frequency';
import { conjunctionCandidates, joinTokens, tokenPositions, toPositions } from '../../index/postings-reader';
import { avgFieldLength, idfSum, normInverseCache, termScore, termWeight } from '../score/bm25';
import { SqlParams } from './sql-params';

/**
 * match_phrase: the documents holding every term, their positions checked in Node (exact or sloppy
 * frequency), scored by BM25 with the phrase frequency and the summed idf (API-NOTES §A2.3).
 */
export async function compilePhrase(
  ctx: CompileContext,
  fieldName: string,
  text: string,
  slop: number,
  analyzerName: string | undefined,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const field = ctx.reader.fields.get(fieldName);
  if (!field) return NOTHING;
  if (field.type !== 'text') return compileTerms(ctx, fieldName, [text], boost, scoring, false, true);
  const tokens = analyze(analyzerFor(ctx, field, analyzerName), text);
  if (tokens.length === 0) return NOTHING;
  if (tokens.length === 1) return compileTermClauses(ctx, field, [tokens[0]!.term], 1, boost, scoring);
  const stats = await loadTerms(ctx, field, [...new Set(tokens.map((t) => t.term))]);
  if (tokens.some((t) => !stats.has(t.term))) return NOTHING;
  // Candidates: the documents holding every term; then positions from their token streams.
  const q = new SqlParams();
  const idx = `${q.add(ctx.reader.indexId)}::bigint`;
  const ids = new Map([...stats].map(([term, stat]) => [term, `${q.add(stat.termId)}::bigint`]));
  const candidates = conjunctionCandidates(
    idx,
    [...stats].map(([term, stat]) => ({ id: ids.get(term)!, docFreq: stat.docFreq })),
  );
  const { rows } = await ctx.db.query<Record<string, unknown> & { doc_key: string; norm: number }>(
    `SELECT p0.doc_key, p0.norm, ${tokens.map((t, i) => `${tokenPositions('dt', ids.get(t.term)!)} AS pos${i}`).join(', ')}
     FROM (${candidates}) p0 ${joinTokens('dt', idx, `${q.add(field.fieldId)}::int`, 'p0.doc_key')}`,
    q.values,
  );
  const offsets = tokens.map((t) => t.position - tokens[0]!.position);
  const avgdl = avgFieldLength({ docCount: field.docCount, sumTotalTermFreq: field.sumTotalTermFreq });
  const cache = normInverseCache(avgdl);
  const weight = termWeight(
    boost,
    idfSum(
      tokens.map((t) => stats.get(t.term)!.docFreq),
      field.docCount,
    ),
  );
  const keys: string[] = [];
  const scores: number[] = [];
  for (const row of rows) {
    const positions = tokens.map((_, i) => toPositions(row[`pos${i}`] as number[] | null));
    const freq = phraseFrequency(positions, offsets, slop);
    if (freq > 0) {
      keys.push(row.doc_key);
      scores.push(scoring ? termScore(weight, freq, cache[row.norm]!) : 0);
    }
  }
  if (keys.length === 0) return NOTHING;
  const { params } = ctx;
  return `SELECT doc_key, s FROM unnest(${params.add(keys)}::bigint[], ${params.add(scores)}::float4[]) AS ph(doc_key, s)`;
}
