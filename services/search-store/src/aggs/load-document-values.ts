import { EsError } from '@acme/common';
import type { DocumentValues } from '../script/runtime-fields';
import type { DocValueType } from '../script/script-values';
import type { AggField, MatchedSet, Queryable } from './agg-context';
import { docValueType } from './field-values';
import { SqlBuilder } from './sql-builder';

/**
 * Loads the doc values and _source of a set of documents (SQL returning doc_key) for runtime-field
 * scripts: three queries, whatever the number of documents, refused beyond `limit` documents.
 * Used by aggregations and by the search engine for `fields`, queries and sort on runtime fields.
 */
export async function loadDocumentValues(
  client: Queryable,
  scope: { indexIds: string[]; fieldsByPath(path: string): AggField[] },
  docs: MatchedSet,
  limit: number,
): Promise<Map<string, DocumentValues>> {
  const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM (${docs.sql}) m`, docs.params);
  const n = Number(count.rows[0]?.n ?? 0);
  if (n > limit) {
    throw new EsError(
      'illegal_argument_exception',
      `Runtime fields are evaluated per document; [${n}] matched documents exceed the limit of [${limit}]`,
    );
  }
  const b = new SqlBuilder();
  const matched = b.fragment(docs.sql, docs.params);
  const ids = b.param(scope.indexIds, 'bigint[]');
  const values = await client.query<{
    doc_key: string;
    path: string;
    type: string;
    num: number | null;
    kw: string | null;
  }>(
    `SELECT dv.doc_key, f.path, f.type, dv.num, dv.kw FROM doc_values dv
       JOIN fields f ON f.index_id = dv.index_id AND f.field_id = dv.field_id
      WHERE dv.index_id = ANY(${ids}) AND dv.doc_key IN (SELECT m.doc_key FROM (${matched}) m)
      ORDER BY dv.doc_key, f.path, dv.num, dv.kw`,
    b.params,
  );
  const sources = await client.query<{ doc_key: string; source: Record<string, unknown> }>(
    `SELECT d.doc_key, d.source FROM documents d WHERE d.index_id = ANY(${ids}) AND d.doc_key IN (SELECT m.doc_key FROM (${matched}) m) ORDER BY d.doc_key`,
    b.params,
  );
  const out = new Map<string, DocumentValues>();
  const raws = new Map<string, Map<string, { type: DocValueType; values: unknown[] }>>();
  const emptyFor = (field: string): { type: DocValueType; values: unknown[] } | undefined => {
    const mapped = scope.fieldsByPath(field)[0];
    const type = mapped && docValueType(mapped.type);
    return type ? { type, values: [] } : undefined;
  };
  const make = (key: string): Map<string, { type: DocValueType; values: unknown[] }> => {
    let raw = raws.get(key);
    if (!raw) {
      const fields = new Map<string, { type: DocValueType; values: unknown[] }>();
      raw = fields;
      raws.set(key, fields);
      out.set(key, { docValues: (field) => fields.get(field) ?? emptyFor(field) });
    }
    return raw;
  };
  for (const row of sources.rows) {
    make(row.doc_key);
    (out.get(row.doc_key) as DocumentValues).source = row.source;
  }
  for (const row of values.rows) {
    const type = docValueType(row.type);
    if (!type) continue;
    const raw = make(row.doc_key);
    let entry = raw.get(row.path);
    if (!entry) raw.set(row.path, (entry = { type, values: [] }));
    entry.values.push(row.kw ?? (type === 'boolean' ? row.num === 1 : row.num));
  }
  return out;
}
