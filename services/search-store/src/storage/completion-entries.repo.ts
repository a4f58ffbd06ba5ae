import type { Queryable } from './queryable';

/**
 * The rows of migration 0022: one per input of a document's completion field (index/completion-writer.ts
 * writes them, search/suggest/completion-suggest.ts reads them).
 */
export interface CompletionEntry {
  field: string;
  analyzed: string;
  input: string;
  weight: number;
  docKey: number;
}

export async function saveCompletionEntries(
  db: Queryable,
  indexId: string,
  entries: CompletionEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `INSERT INTO completion_entries (index_id, field, analyzed, input, weight, doc_key)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[])`,
    [
      indexId,
      entries.map((e) => e.field),
      entries.map((e) => e.analyzed),
      entries.map((e) => e.input),
      entries.map((e) => e.weight),
      entries.map((e) => e.docKey),
    ],
  );
}

export async function deleteCompletionEntries(
  db: Queryable,
  indexId: string,
  docKeys: number[],
): Promise<void> {
  await db.query('DELETE FROM completion_entries WHERE index_id = $1 AND doc_key = ANY($2::bigint[])', [
    indexId,
    docKeys,
  ]);
}

export async function copyCompletionEntries(
  db: Queryable,
  fromIndexId: string,
  toIndexId: string,
): Promise<void> {
  await db.query(
    `INSERT INTO completion_entries (index_id, field, analyzed, input, weight, doc_key)
     SELECT $2, field, analyzed, input, weight, doc_key FROM completion_entries WHERE index_id = $1`,
    [fromIndexId, toIndexId],
  );
}

export async function dropCompletionEntries(db: Queryable, indexId: string): Promise<void> {
  await db.query('DELETE FROM completion_entries WHERE index_id = $1', [indexId]);
}

/** An entry of a field as the suggester reads it. */
export interface CompletionRow {
  analyzed: string;
  input: string;
  weight: number;
  doc_key: string;
}

function like(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * The best entry of each document whose key starts with `prefix` (a btree range under "C"),
 * heaviest first (ties: key, then doc key), at most `limit` documents: the exact prefix path.
 */
export async function findTopCompletions(
  db: Queryable,
  indexId: string,
  field: string,
  prefix: string,
  limit: number,
): Promise<CompletionRow[]> {
  const { rows } = await db.query<CompletionRow>(
    `SELECT * FROM (
       SELECT DISTINCT ON (c.doc_key) c.analyzed, c.input, c.weight, c.doc_key
         FROM completion_entries c
        WHERE c.index_id = $1 AND c.field = $2 AND c.analyzed LIKE $3
        ORDER BY c.doc_key, c.weight DESC, c.analyzed) x
     ORDER BY x.weight DESC, x.analyzed, x.doc_key LIMIT $4`,
    [indexId, field, like(prefix), limit],
  );
  return rows;
}

/** Every entry whose key starts with `prefix`, at most `limit` (fuzzy and regex filter them in Node). */
export async function scanCompletions(
  db: Queryable,
  indexId: string,
  field: string,
  prefix: string,
  limit: number,
): Promise<CompletionRow[]> {
  const { rows } = await db.query<CompletionRow>(
    `SELECT c.analyzed, c.input, c.weight, c.doc_key FROM completion_entries c
      WHERE c.index_id = $1 AND c.field = $2 AND c.analyzed LIKE $3 ORDER BY c.analyzed LIMIT $4`,
    [indexId, field, like(prefix), limit],
  );
  return rows;
}

/** The `_id` and source text of documents by doc key. */
export async function findCompletionDocuments(
  db: Queryable,
  indexId: string,
  docKeys: string[],
): Promise<Map<string, { id: string; sourceText: string }>> {
  const { rows } = await db.query<{ doc_key: string; id: string; source_text: string }>(
    'SELECT doc_key, id, source::text AS source_text FROM documents WHERE index_id = $1 AND doc_key = ANY($2::bigint[])',
    [indexId, docKeys],
  );
  return new Map(rows.map((r) => [String(r.doc_key), { id: r.id, sourceText: r.source_text }]));
}
