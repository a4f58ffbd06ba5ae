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

export interface NewDocument {
  id: string;
  source: Record<string, unknown>;
  version: number;
  seqNo: number;
  primaryTerm: number;
}

/** Inserts a batch with one statement (unnest of arrays); returns each row's fresh doc_key by id. */
export async function saveDocuments(
  db: Queryable,
  indexId: string,
  documents: NewDocument[],
): Promise<Map<string, string>> {
  if (documents.length === 0) return new Map();
  const { rows } = await db.query<{ doc_key: string; id: string }>(
    `INSERT INTO documents (index_id, id, source, version, seq_no, primary_term)
     SELECT $1, d.id, d.source, d.version, d.seq_no, d.primary_term
     FROM unnest($2::text[], $3::json[], $4::bigint[], $5::bigint[], $6::bigint[])
       AS d(id, source, version, seq_no, primary_term)
     RETURNING doc_key, id`,
    [
      indexId,
      documents.map((d) => d.id),
      documents.map((d) => JSON.stringify(d.source)),
      documents.map((d) => d.version),
      documents.map((d) => d.seqNo),
      documents.map((d) => d.primaryTerm),
    ],
  );
  return new Map(rows.map((row) => [row.id, row.doc_key]));
}

export async function countDocuments(db: Queryable, indexIds: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ index_id: string; count: string }>(
    'SELECT index_id, count(*) AS count FROM documents WHERE index_id = ANY($1::bigint[]) GROUP BY index_id',
    [indexIds],
  );
  return new Map(rows.map((row) => [row.index_id, Number(row.count)]));
}
