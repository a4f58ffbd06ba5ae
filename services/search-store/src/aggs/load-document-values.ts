import { EsError } from '@acme/common';
import type { DocumentValues } from '../script/runtime-fields';
import type { DocValueType } from '../script/script-values';
import { findDocValues } from '../index/doc-values-reader';
import type { AggField, MatchedSet, Queryable } from './agg-context';
import { docValueType } from './doc-value-type';

/**
 * Most documents a runtime field is evaluated over per index and request (queries, sort, aggregations).
 * Elasticsearch has no such count; this bounds the time and the size of the relation handed to SQL.
 */
export const DEFAULT_MAX_RUNTIME_DOCS = 1_000_000;

/** Documents per round of {@link forEachDocumentChunk}: two statements and one chunk's sources in memory. */
export const DOCUMENT_CHUNK = 5_000;

export interface DocumentChunkOptions {
  /** Most documents; more is refused with Elasticsearch's illegal_argument_exception. */
  limit: number;
  /** Load `_source` too (runtime fields without a script, scripts reading `params._source`). */
  withSource: boolean;
  chunkSize?: number;
}

/**
 * Hands runtime-field scripts a set of documents (SQL returning doc_key) in doc_key order, `chunkSize`
 * at a time: the matched keys are read once, then each chunk's doc values (and `_source` when asked)
 * in two statements. Memory holds one chunk of documents, whatever the number matched. Every matched
 * document gets an entry, with or without values. Used by aggregations and by the search engine for
 * queries and sort on runtime fields.
 */
export async function forEachDocumentChunk(
  client: Queryable,
  scope: { indexIds: string[]; fieldsByPath(path: string): AggField[] },
  docs: MatchedSet,
  options: DocumentChunkOptions,
  visit: (chunk: Map<string, DocumentValues>) => void,
): Promise<void> {
  const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM (${docs.sql}) m`, docs.params);
  const n = Number(count.rows[0]?.n ?? 0);
  if (n > options.limit) {
    throw new EsError(
      'illegal_argument_exception',
      `Runtime fields are evaluated per document; [${n}] matched documents exceed the limit of [${options.limit}]`,
    );
  }
  if (n === 0) return;
  const listed = await client.query<{ keys: string | null }>(
    `SELECT string_agg(m.doc_key::text, ',' ORDER BY m.doc_key) AS keys FROM (SELECT DISTINCT doc_key FROM (${docs.sql}) d) m`,
    docs.params,
  );
  const keys = listed.rows[0]?.keys?.split(',') ?? [];
  const size = options.chunkSize ?? DOCUMENT_CHUNK;
  const ids = `{${scope.indexIds.join(',')}}`;
  for (let from = 0; from < keys.length; from += size) {
    const chunk = keys.slice(from, from + size);
    visit(await loadChunk(client, scope, ids, chunk, options.withSource));
  }
}

async function loadChunk(
  client: Queryable,
  scope: { fieldsByPath(path: string): AggField[] },
  ids: string,
  keys: string[],
  withSource: boolean,
): Promise<Map<string, DocumentValues>> {
  const list = `{${keys.join(',')}}`;
  const values = await findDocValues(client, ids, list);
  const emptyFor = (field: string): { type: DocValueType; values: unknown[] } | undefined => {
    const mapped = scope.fieldsByPath(field)[0];
    const type = mapped && docValueType(mapped.type);
    return type ? { type, values: [] } : undefined;
  };
  const out = new Map<string, DocumentValues>();
  const raws = new Map<string, Map<string, { type: DocValueType; values: unknown[] }>>();
  for (const key of keys) {
    const fields = new Map<string, { type: DocValueType; values: unknown[] }>();
    raws.set(key, fields);
    out.set(key, { docValues: (field) => fields.get(field) ?? emptyFor(field) });
  }
  if (withSource) {
    const sources = await client.query<{ doc_key: string; source: Record<string, unknown> }>(
      `SELECT d.doc_key, d.source FROM documents d
        WHERE d.index_id = ANY($1::bigint[]) AND d.doc_key = ANY($2::bigint[])`,
      [ids, list],
    );
    for (const row of sources.rows) {
      const doc = out.get(row.doc_key);
      if (doc) doc.source = row.source;
    }
  }
  for (const row of values) {
    const type = docValueType(row.type);
    if (!type) continue;
    const raw = raws.get(row.doc_key);
    if (!raw) continue;
    let entry = raw.get(row.path);
    if (!entry) raw.set(row.path, (entry = { type, values: [] }));
    entry.values.push(row.kw ?? (type === 'boolean' ? row.num === 1 : row.num));
  }
  return out;
}
