import { analyze } from '../analysis/analyzer';
import { NOTHING, type CompileContext } from './compile-context';
import { analyzerFor, compileTermClauses, loadTerms } from './compile-term-clauses';
import { compileTerms } from './compile-term-level';
import { phraseFrequency } from './phrase-frequency';
import { avgFieldLength, idfSum, normInverseCache, termScore, termWeight } from './score/bm25';
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
  const order = tokens
    .map((_, i) => i)
    .sort((a, b) => stats.get(tokens[a]!.term)!.docFreq - stats.get(tokens[b]!.term)!.docFreq);
  const q = new SqlParams();
  const joins = order
    .slice(1)
    .map(
      (i) =>
        `JOIN postings p${i} ON p${i}.index_id = p${order[0]}.index_id AND p${i}.doc_key = p${order[0]}.doc_key AND p${i}.term_id = ${q.add(stats.get(tokens[i]!.term)!.termId)}`,
    )
    .join(' ');
  const { rows } = await ctx.db.query<Record<string, unknown> & { doc_key: string; norm: number }>(
    `SELECT p${order[0]}.doc_key, p${order[0]}.norm, ${tokens.map((_, i) => `p${i}.positions AS pos${i}`).join(', ')}
     FROM postings p${order[0]} ${joins}
     WHERE p${order[0]}.index_id = ${q.add(ctx.reader.indexId)} AND p${order[0]}.term_id = ${q.add(stats.get(tokens[order[0]!]!.term)!.termId)}`,
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
    const positions = tokens.map((_, i) => row[`pos${i}`] as number[]);
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
