import type { Queryable } from '../storage/queryable';

/**
 * Field statistics as BM25 reads them (Lucene's CollectionStatistics): per field, the number of
 * documents with a value and the sum of their lengths, kept by the index writer in the same
 * transaction as the postings. Callers get rows and fragments from here, never the tables' names.
 */
export interface FieldStatsRow {
  index_id: string;
  path: string;
  field_id: number;
  /** null until a document has a value in the field. */
  doc_count: string | null;
  sttf: string | null;
}

/** Every field with an id in these indices and its statistics (one round trip for a search). */
export async function findFieldStats(db: Queryable, indexIds: string[]): Promise<FieldStatsRow[]> {
  const { rows } = await db.query<FieldStatsRow>(
    `SELECT f.index_id, f.path, f.field_id, s.doc_count, s.sum_total_term_freq AS sttf
     FROM fields f LEFT JOIN field_stats s USING (index_id, field_id)
     WHERE f.index_id = ANY($1::bigint[])`,
    [indexIds],
  );
  return rows;
}

/**
 * `(path, field_id, doc_count, sum_total_term_freq)` of the fields at `paths` (a text[] expression)
 * that have statistics: the fast path reads them in the statement that reads the postings.
 */
export function fieldStatsOfPaths(indexId: string, paths: string): string {
  return `SELECT f.path, f.field_id, s.doc_count, s.sum_total_term_freq
    FROM fields f JOIN field_stats s ON s.index_id = f.index_id AND s.field_id = f.field_id
    WHERE f.index_id = ${indexId} AND f.path = ANY(${paths}::text[])`;
}
