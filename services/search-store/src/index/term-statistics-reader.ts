import type { Queryable } from '../storage/queryable';

/**
 * Term statistics as the phrase suggester's WordScorer reads them from Lucene's Terms: each term's
 * total frequency (totalTermFreq) and the number of distinct terms of the field (Terms.size()).
 */
export async function findTotalTermFreqs(
  db: Queryable,
  indexId: string,
  fieldId: number,
  terms: string[],
): Promise<Map<string, number>> {
  if (terms.length === 0) return new Map();
  const { rows } = await db.query<{ term: string; ttf: string }>(
    'SELECT term, total_term_freq AS ttf FROM terms WHERE index_id = $1 AND field_id = $2 AND term = ANY($3::text[])',
    [indexId, fieldId, terms],
  );
  return new Map(rows.map((r) => [r.term, Number(r.ttf)]));
}

export async function countFieldTerms(db: Queryable, indexId: string, fieldId: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM term_dictionary WHERE index_id = $1 AND field_id = $2',
    [indexId, fieldId],
  );
  return Number(rows[0]?.n ?? 0);
}
