import type { PoolClient } from 'pg';
import { streamBinaryCopy } from './copy-binary';
import type { Queryable } from './queryable';

export interface StoredDocument {
  docKey: string;
  id: string;
  source: Record<string, unknown>;
  version: number;
  seqNo: number;
  primaryTerm: number;
}

interface DocumentRow {
  doc_key: string;
  id: string;
  source: Record<string, unknown>;
  version: string;
  seq_no: string;
  primary_term: string;
}

function toDocument(row: DocumentRow): StoredDocument {
  return {
    docKey: row.doc_key,
    id: row.id,
    source: row.source,
    version: Number(row.version),
    seqNo: Number(row.seq_no),
    primaryTerm: Number(row.primary_term),
  };
}

const COLUMNS = 'doc_key, id, source, version, seq_no, primary_term';

/** One document with its source text exactly as stored (GET returns it byte for byte). */
export async function findDocumentWithText(
  db: Queryable,
  indexId: string,
  id: string,
): Promise<(StoredDocument & { sourceText: string }) | undefined> {
  const { rows } = await db.query<DocumentRow & { source_text: string }>(
    `SELECT ${COLUMNS}, source::text AS source_text FROM documents WHERE index_id = $1 AND id = $2`,
    [indexId, id],
  );
  return rows[0] ? { ...toDocument(rows[0]), sourceText: rows[0].source_text } : undefined;
}

/** Many documents of one index with their source texts, in one round trip (`_mget`); absent ids are left out. */
export async function findDocumentsWithText(
  db: Queryable,
  indexId: string,
  ids: string[],
): Promise<(StoredDocument & { sourceText: string })[]> {
  const { rows } = await db.query<DocumentRow & { source_text: string }>(
    `SELECT ${COLUMNS}, source::text AS source_text FROM documents WHERE index_id = $1 AND id = ANY($2::text[])`,
    [indexId, ids],
  );
  return rows.map((row) => ({ ...toDocument(row), sourceText: row.source_text }));
}

export async function findDocument(
  db: Queryable,
  indexId: string,
  id: string,
): Promise<StoredDocument | undefined> {
  const { rows } = await db.query<DocumentRow>(
    `SELECT ${COLUMNS} FROM documents WHERE index_id = $1 AND id = $2`,
    [indexId, id],
  );
  return rows[0] ? toDocument(rows[0]) : undefined;
}

/** The current rows for a batch's ids, in one round trip (the caller holds the index row lock). */
export async function findDocuments(
  db: Queryable,
  indexId: string,
  ids: string[],
): Promise<StoredDocument[]> {
  const { rows } = await db.query<DocumentRow>(
    `SELECT ${COLUMNS} FROM documents WHERE index_id = $1 AND id = ANY($2::text[])`,
    [indexId, ids],
  );
  return rows.map(toDocument);
}

export async function deleteDocumentsByKey(db: Queryable, indexId: string, docKeys: string[]): Promise<void> {
  if (docKeys.length === 0) return;
  await db.query('DELETE FROM documents WHERE index_id = $1 AND doc_key = ANY($2::bigint[])', [
    indexId,
    docKeys,
  ]);
}

/** Every doc key of an index (an IndexWriter without a set-based drop removes them one by one). */
export async function findDocKeys(db: Queryable, indexId: string): Promise<string[]> {
  const { rows } = await db.query<{ doc_key: string }>('SELECT doc_key FROM documents WHERE index_id = $1', [
    indexId,
  ]);
  return rows.map((r) => r.doc_key);
}

export interface NewDocument {
  id: string;
  source: Record<string, unknown>;
  /** The JSON text to store verbatim (the `json` column keeps it exactly); else `source` serialised. */
  sourceText?: string;
  version: number;
  seqNo: number;
  primaryTerm: number;
}

/**
 * Inserts a batch and returns each row's fresh doc_key by id: the keys are drawn from the sequence in
 * the documents' order (as the column default would), then the rows go by COPY, which Postgres parses
 * in about half the time of an INSERT of unnest(json[]) and node-postgres no longer escapes every
 * source as an array element. The source text is stored exactly as given (COPY escapes are undone).
 */
export async function saveDocuments(
  client: PoolClient,
  indexId: string,
  documents: NewDocument[],
): Promise<Map<string, string>> {
  if (documents.length === 0) return new Map();
  const keys = await drawDocKeys(client, documents.length);
  await copyDocuments(client, indexId, documents, keys);
  return new Map(documents.map((d, i) => [d.id, keys[i]!]));
}

/** `count` fresh doc keys, ascending: drawn from the sequence as the column default would. */
export async function drawDocKeys(client: PoolClient, count: number): Promise<string[]> {
  if (count === 0) return [];
  const { rows } = await client.query<{ k: string }>(
    "SELECT nextval('doc_key_seq') AS k FROM generate_series(1, $1) ORDER BY 1",
    [count],
  );
  return rows.map((r) => r.k);
}

/**
 * The rows of documents under keys drawn by drawDocKeys (`keys[i]` is `documents[i]`'s), by binary COPY:
 * the source text goes as it is (a json value's binary form is its text), where the text format had
 * every backslash of the ~1.3 kB sources doubled by a regular expression and undone by Postgres.
 */
export async function copyDocuments(
  client: PoolClient,
  indexId: string,
  documents: NewDocument[],
  keys: readonly string[],
): Promise<void> {
  if (documents.length === 0) return;
  const index = Number(indexId);
  await streamBinaryCopy(
    client,
    'COPY documents (index_id, doc_key, id, source, version, seq_no, primary_term) FROM STDIN',
    function* (copy) {
      for (const [i, d] of documents.entries()) {
        copy
          .row(7)
          .int8(index)
          .int8(Number(keys[i]!))
          .text(d.id)
          .text(d.sourceText ?? JSON.stringify(d.source))
          .int8(d.version)
          .int8(d.seqNo)
          .int8(d.primaryTerm);
        yield;
      }
    },
  );
}

export async function countDocuments(db: Queryable, indexIds: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ index_id: string; count: string }>(
    'SELECT index_id, count(*) AS count FROM documents WHERE index_id = ANY($1::bigint[]) GROUP BY index_id',
    [indexIds],
  );
  return new Map(rows.map((row) => [row.index_id, Number(row.count)]));
}

/** Copies every document row of one index to another, keeping doc keys (clone). One statement. */
export async function copyAllDocuments(
  db: Queryable,
  fromIndexId: string,
  toIndexId: string,
): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO documents (index_id, doc_key, id, source, version, seq_no, primary_term)
     SELECT $2, doc_key, id, source, version, seq_no, primary_term FROM documents WHERE index_id = $1`,
    [fromIndexId, toIndexId],
  );
  return rowCount ?? 0;
}

export interface ReindexCopy {
  docKey: string;
  id: string;
  source: Record<string, unknown>;
  oldDocKey: string | null;
  version: number;
  seqNo: number;
}

export interface ReindexSelection {
  sourceIndexIds: string[];
  /** Only these ids (an `ids` query); all documents when absent. */
  ids?: string[];
  /** Ids left out (documents the destination mapping refused). */
  excludeIds?: string[];
  maxDocs?: number;
  /** op_type create: existing destination ids are left alone (they are version conflicts). */
  createOnly: boolean;
  /** SQL yielding the `(index_id, doc_key)` the source query matched; absent: every document. */
  matched?: MatchedKeysSql;
}

/** A query's matched documents as SQL with its own `$1…$n` parameters. */
export interface MatchedKeysSql {
  text: string;
  values: unknown[];
}

/** The statement's own placeholders follow the matched SQL's, so both share one parameter list. */
export function withMatched(
  matched: MatchedKeysSql | undefined,
  own: unknown[],
): { at: (n: number) => string; filter: (alias: string) => string; values: unknown[] } {
  const base = matched?.values.length ?? 0;
  return {
    at: (n) => `$${base + n}`,
    filter: (alias) =>
      matched
        ? `AND (${alias}.index_id, ${alias}.doc_key) IN (SELECT index_id, doc_key FROM (${matched.text}) matched)`
        : '',
    values: [...(matched?.values ?? []), ...own],
  };
}

/**
 * Reindex's copy as one statement inside Postgres: pick the source rows (last source wins per id),
 * delete the destination rows they replace, insert new rows with fresh doc keys, versions (+1 on a
 * replace) and consecutive seq_nos from `firstSeqNo`. Returns the new rows and the keys they replaced.
 */
export async function copyDocumentsForReindex(
  db: Queryable,
  destIndexId: string,
  selection: ReindexSelection,
  firstSeqNo: number,
): Promise<ReindexCopy[]> {
  const q = withMatched(selection.matched, [
    destIndexId,
    selection.sourceIndexIds,
    selection.ids ?? null,
    selection.maxDocs ?? null,
    selection.createOnly,
    firstSeqNo,
    selection.excludeIds ?? [],
  ]);
  const { rows } = await db.query<{
    doc_key: string;
    id: string;
    source: Record<string, unknown>;
    old_doc_key: string | null;
    version: string;
    seq_no: string;
  }>(
    `WITH picked AS (
       SELECT DISTINCT ON (s.id) s.id, s.source, s.doc_key
       FROM documents s JOIN unnest(${q.at(2)}::bigint[]) WITH ORDINALITY AS src(index_id, ord) ON src.index_id = s.index_id
       WHERE (${q.at(3)}::text[] IS NULL OR s.id = ANY(${q.at(3)}::text[])) AND NOT (s.id = ANY(${q.at(7)}::text[]))
         ${q.filter('s')}
       ORDER BY s.id, src.ord DESC
     ),
     limited AS (
       SELECT p.* FROM picked p
       WHERE NOT (${q.at(5)}::boolean AND EXISTS (SELECT 1 FROM documents d WHERE d.index_id = ${q.at(1)} AND d.id = p.id))
       ORDER BY p.doc_key LIMIT ${q.at(4)}
     ),
     old AS (
       DELETE FROM documents d USING limited l WHERE d.index_id = ${q.at(1)} AND d.id = l.id
       RETURNING d.doc_key, d.id, d.version
     ),
     ins AS (
       INSERT INTO documents (index_id, id, source, version, seq_no, primary_term)
       SELECT ${q.at(1)}, l.id, l.source, COALESCE(o.version + 1, 1), ${q.at(6)} + row_number() OVER (ORDER BY l.doc_key) - 1, 1
       FROM limited l LEFT JOIN old o USING (id)
       RETURNING doc_key, id, source, version, seq_no
     )
     SELECT ins.doc_key, ins.id, ins.source, old.doc_key AS old_doc_key, ins.version, ins.seq_no
     FROM ins LEFT JOIN old USING (id) ORDER BY ins.seq_no`,
    q.values,
  );
  return rows.map((row) => ({
    docKey: row.doc_key,
    id: row.id,
    source: row.source,
    oldDocKey: row.old_doc_key,
    version: Number(row.version),
    seqNo: Number(row.seq_no),
  }));
}

/** Replaces the sources of rows just written (reindex's `source._source`), one statement for all. */
export async function saveDocumentSources(
  db: Queryable,
  indexId: string,
  docs: { docKey: string; source: Record<string, unknown> }[],
): Promise<void> {
  await db.query(
    `UPDATE documents d SET source = u.source::json
     FROM unnest($2::bigint[], $3::text[]) AS u(doc_key, source)
     WHERE d.index_id = $1 AND d.doc_key = u.doc_key`,
    [indexId, docs.map((d) => d.docKey), docs.map((d) => JSON.stringify(d.source))],
  );
}

/** Ids among `sourceIndexIds` that already exist in the destination (op_type create conflicts). */
export async function findReindexConflicts(
  db: Queryable,
  destIndexId: string,
  sourceIndexIds: string[],
  ids: string[] | undefined,
  matched?: MatchedKeysSql,
): Promise<{ id: string; version: number }[]> {
  const q = withMatched(matched, [destIndexId, sourceIndexIds, ids ?? null]);
  const { rows } = await db.query<{ id: string; version: string }>(
    `SELECT d.id, d.version FROM documents d
     WHERE d.index_id = ${q.at(1)} AND (${q.at(3)}::text[] IS NULL OR d.id = ANY(${q.at(3)}::text[]))
       AND EXISTS (SELECT 1 FROM documents s WHERE s.index_id = ANY(${q.at(2)}::bigint[]) AND s.id = d.id
                   ${q.filter('s')})
     ORDER BY d.id`,
    q.values,
  );
  return rows.map((row) => ({ id: row.id, version: Number(row.version) }));
}

/** The tables whose rows make up an index's store.size. */
const STORE_TABLES = [
  'documents',
  'posting_blocks',
  'term_dictionary',
  'doc_values',
  'doc_value_columns',
  'doc_tokens',
  'field_stats',
  'fields',
  'dense_vectors',
  'hnsw_nodes',
  'hnsw_graphs',
  'completion_entries',
];

/**
 * Bytes each index occupies in Postgres: the stored size of its document rows plus its rows in every
 * inverted-index table (dictionary, posting blocks, token streams, field lengths and stats, doc values;
 * pg_column_size of whole rows, so TOAST-compressed sources count compressed). One plain aggregate per
 * index and table, never a GROUP BY: a sort below the aggregate hands it each row as a copied composite
 * whose varlena header may be packed from 4 bytes to 1, so the same rows summed 3 bytes apiece less
 * when several indices were asked together (seen: `_cat/indices` and `_cat/indices/test` disagreeing).
 */
export async function findStoreSizes(db: Queryable, indexIds: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ index_id: string; bytes: string }>(
    `SELECT i.index_id, (${STORE_TABLES.map(
      (table) =>
        `(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM ${table} t WHERE t.index_id = i.index_id)`,
    ).join(' + ')})::bigint AS bytes
     FROM unnest($1::bigint[]) AS i(index_id)`,
    [indexIds],
  );
  return new Map(rows.map((row) => [row.index_id, Number(row.bytes)]));
}
