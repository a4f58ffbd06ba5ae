/**
 * Doc values as queries, sorts and aggregations read them (Lucene's DocValues): per document and
 * field, its values as `num` (numbers, dates as epoch ms, booleans as 0/1) or `kw` (keywords), one row
 * per value, of live documents only. Callers get relations and rows from here, never the table's name;
 * a relation's parameters are SQL expressions the caller has already bound (`$3::bigint`, a column).
 */
export type DocValueColumn = 'num' | 'kw';

/**
 * `(doc_key)` of the documents with a value of field `fieldId` satisfying `condition`, a boolean SQL
 * expression over the columns `num` and `kw` (`num = ANY(…)`, `kw IS NOT NULL AND kw > …`).
 */
export function docsWithValue(indexId: string, fieldId: string, condition: string): string {
  return `SELECT DISTINCT doc_key FROM doc_values WHERE index_id = ${indexId} AND field_id = ${fieldId} AND ${condition}`;
}

/**
 * `(doc_key)` of the documents with any value in one of the fields `fieldIds` (an int[] expression):
 * text and keyword values leave a token stream, the others doc values (migration 0007). `exists`.
 */
export function docsWithField(indexId: string, fieldIds: string): string {
  return `SELECT doc_key FROM doc_tokens WHERE index_id = ${indexId} AND field_id = ANY(${fieldIds}::int[])
         UNION SELECT doc_key FROM doc_values WHERE index_id = ${indexId} AND field_id = ANY(${fieldIds}::int[])`;
}

/**
 * A scalar subquery: the `agg` (min or max) of `column` over the values of field `fieldId` in document
 * `docKey` of index `indexId` (expressions over the outer query), null when it has none. Sorting.
 */
export function docValueOf(
  agg: 'min' | 'max',
  column: DocValueColumn,
  indexId: string,
  docKey: string,
  fieldId: string,
): string {
  return `(SELECT ${agg}(v.${column}) FROM doc_values v WHERE v.index_id = ${indexId} AND v.doc_key = ${docKey} AND v.field_id = ${fieldId})`;
}

/**
 * `(doc_key, v)`: every value in `column` of the fields, one `{indexId, fieldId}` per index searched
 * (aggregations). Plain equalities, not a join to unnest, so that the planner sees each field's real
 * row count.
 */
export function docValuesOf(column: DocValueColumn, fields: { indexId: string; fieldId: string }[]): string {
  return `SELECT dv.doc_key, dv.${column} AS v FROM doc_values dv WHERE (${fields
    .map((f) => `(dv.index_id = ${f.indexId} AND dv.field_id = ${f.fieldId})`)
    .join(' OR ')}) AND dv.${column} IS NOT NULL`;
}

export type DocValueRow = {
  doc_key: string;
  path: string;
  /** The field's mapping type. */
  type: string;
  num: number | null;
  kw: string | null;
};

/** Anything with pg's query method (Pool, PoolClient, aggregations' narrower client type). */
interface QueryRunner {
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * Every doc value of these documents (`indexIds` and `docKeys` as Postgres array literals), with the
 * path and type of its field, ordered by document, path and value (top_hits, scripts over `doc`).
 */
export async function findDocValues(
  db: QueryRunner,
  indexIds: string,
  docKeys: string,
): Promise<DocValueRow[]> {
  const { rows } = await db.query<DocValueRow>(
    `SELECT dv.doc_key, f.path, f.type, dv.num, dv.kw FROM doc_values dv
       JOIN fields f ON f.index_id = dv.index_id AND f.field_id = dv.field_id
      WHERE dv.index_id = ANY($1::bigint[]) AND dv.doc_key = ANY($2::bigint[])
      ORDER BY dv.doc_key, f.path, dv.num, dv.kw`,
    [indexIds, docKeys],
  );
  return rows;
}
