/**
 * A text field's distinct terms per document as a relation (doc_key, v): what significant_text
 * aggregates (ES re-analyses `_source`; the token streams in `doc_tokens` hold the same terms), and
 * the terms' document frequencies off the dictionary for its background. The ids are SQL
 * placeholders of the caller's statement, as docValuesOf's.
 */
export function docTermsOf(fields: { indexId: string; fieldId: string }[]): string {
  return `SELECT dt.doc_key, td.term AS v
    FROM doc_tokens dt
    CROSS JOIN LATERAL (SELECT DISTINCT x.term_id FROM unnest(dt.term_ids) AS x(term_id)) u
    JOIN term_dictionary td ON td.index_id = dt.index_id AND td.term_id = u.term_id
   WHERE ${fields.map((f) => `(dt.index_id = ${f.indexId} AND dt.field_id = ${f.fieldId})`).join(' OR ')}`;
}

/** Document frequency of each of `terms` (a text[] placeholder) summed over the fields. */
export function termDocFreqsOf(fields: { indexId: string; fieldId: string }[], terms: string): string {
  return `SELECT t.term AS k, sum(t.doc_freq) AS c FROM terms t
   WHERE (${fields.map((f) => `(t.index_id = ${f.indexId} AND t.field_id = ${f.fieldId})`).join(' OR ')})
     AND t.term = ANY(${terms}) GROUP BY t.term`;
}
