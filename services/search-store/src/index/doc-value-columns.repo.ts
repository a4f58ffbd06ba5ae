import type { PoolClient } from 'pg';
import { StatementQueue } from '../storage/statement-queue';
import {
  chunkEntries,
  chunkOf,
  decodeChunk,
  DOC_VALUE_CHUNK,
  encodeChunk,
  type ChunkEntry,
  type DocValueChunkRow,
} from './doc-value-chunk';

/**
 * The writer of doc_value_columns (migration 0027): in the transaction that writes or removes the
 * documents' doc_values rows, the chunks they fall in are read, merged or filtered in Node and written
 * back whole, so a chunk always holds exactly its keys' doc_values rows (the reliability recount
 * checks the counts). Writers to one index are serialised by the index row's lock (claimDictionary),
 * so two transactions never rewrite the same chunk from the same old version.
 *
 * New documents take keys above every key of the index, so a bulk batch rewrites at most the index's
 * last chunk and inserts the others; a removal rewrites the chunks of the removed keys.
 */

/** One doc value to add. */
export interface ColumnValue {
  fieldId: number;
  docKey: number | string;
  num: number | null;
  kw: string | null;
}

/** Chunks per statement when a removal rewrites them (bounds memory and the parameters' size). */
const REMOVE_SLICE = 256;

type StoredRow = DocValueChunkRow & { field_id: number };

const COLUMNS = 'field_id, chunk, num_docs, nums, kw_docs, kw_ords, dict';

/** Adds a batch's doc values to their chunks. */
export async function appendDocValueColumns(
  client: PoolClient,
  indexId: string,
  values: Iterable<ColumnValue>,
  queue = new StatementQueue(),
): Promise<void> {
  const byChunk = new Map<string, { fieldId: number; chunk: number; entries: ChunkEntry[] }>();
  for (const v of values) {
    const docKey = Number(v.docKey);
    const chunk = chunkOf(docKey);
    const id = `${v.fieldId}:${chunk}`;
    let slot = byChunk.get(id);
    if (!slot) byChunk.set(id, (slot = { fieldId: v.fieldId, chunk, entries: [] }));
    slot.entries.push({ doc: docKey - chunk * DOC_VALUE_CHUNK, num: v.num, kw: v.kw });
  }
  if (byChunk.size === 0) return;
  // Sorted by key so that concurrent writers (to other indices) touch the primary key in one order.
  const slots = [...byChunk.values()].sort((a, b) => a.fieldId - b.fieldId || a.chunk - b.chunk);
  const { rows } = await queue.add(() =>
    client.query<StoredRow>(
      `SELECT ${COLUMNS} FROM doc_value_columns
        WHERE index_id = $1 AND (field_id, chunk) IN (SELECT * FROM unnest($2::int[], $3::bigint[]))`,
      [indexId, slots.map((s) => s.fieldId), slots.map((s) => s.chunk)],
    ),
  );
  for (const row of rows) {
    const slot = byChunk.get(`${row.field_id}:${Number(row.chunk)}`);
    if (slot) slot.entries.push(...chunkEntries(decodeChunk(row)));
  }
  await queue.add(() =>
    upsertChunks(
      client,
      indexId,
      slots.map((s) => ({ fieldId: s.fieldId, chunk: s.chunk, entries: s.entries })),
    ),
  );
}

/** Takes these documents' values out of their chunks (a chunk left empty is deleted). */
export async function removeDocValueColumns(
  client: PoolClient,
  indexId: string,
  docKeys: readonly (string | number)[],
): Promise<void> {
  const removed = new Set(docKeys.map(Number));
  const chunks = [...new Set([...removed].map(chunkOf))].sort((a, b) => a - b);
  for (let from = 0; from < chunks.length; from += REMOVE_SLICE) {
    const slice = chunks.slice(from, from + REMOVE_SLICE);
    const { rows } = await client.query<StoredRow>(
      `SELECT ${COLUMNS} FROM doc_value_columns WHERE index_id = $1 AND chunk = ANY($2::bigint[])
        ORDER BY field_id, chunk`,
      [indexId, slice],
    );
    const rewritten: { fieldId: number; chunk: number; entries: ChunkEntry[] }[] = [];
    for (const row of rows) {
      const chunk = Number(row.chunk);
      const base = chunk * DOC_VALUE_CHUNK;
      const entries = chunkEntries(decodeChunk(row));
      const kept = entries.filter((e) => !removed.has(base + e.doc));
      if (kept.length < entries.length) rewritten.push({ fieldId: row.field_id, chunk, entries: kept });
    }
    await upsertChunks(client, indexId, rewritten);
  }
}

/** Writes whole chunks (deleting those left without entries). */
async function upsertChunks(
  client: PoolClient,
  indexId: string,
  chunks: { fieldId: number; chunk: number; entries: ChunkEntry[] }[],
): Promise<void> {
  const empty = chunks.filter((c) => c.entries.length === 0);
  const full = chunks.filter((c) => c.entries.length > 0);
  if (empty.length > 0) {
    await client.query(
      `DELETE FROM doc_value_columns
        WHERE index_id = $1 AND (field_id, chunk) IN (SELECT * FROM unnest($2::int[], $3::bigint[]))`,
      [indexId, empty.map((c) => c.fieldId), empty.map((c) => c.chunk)],
    );
  }
  if (full.length === 0) return;
  const encoded = full.map((c) => encodeChunk(c.entries));
  await client.query(
    `INSERT INTO doc_value_columns (index_id, field_id, chunk, num_count, num_docs, nums, kw_count, kw_docs, kw_ords, dict)
     SELECT $1, f, c, nc, nd, nv, kc, kd, ko, kt
       FROM unnest($2::int[], $3::bigint[], $4::int[], $5::bytea[], $6::bytea[], $7::int[], $8::bytea[],
                   $9::bytea[], $10::bytea[]) AS u(f, c, nc, nd, nv, kc, kd, ko, kt)
     ON CONFLICT (index_id, field_id, chunk) DO UPDATE SET
       num_count = EXCLUDED.num_count, num_docs = EXCLUDED.num_docs, nums = EXCLUDED.nums,
       kw_count = EXCLUDED.kw_count, kw_docs = EXCLUDED.kw_docs, kw_ords = EXCLUDED.kw_ords, dict = EXCLUDED.dict`,
    [
      indexId,
      full.map((c) => c.fieldId),
      full.map((c) => c.chunk),
      encoded.map((e) => e.numCount),
      encoded.map((e) => e.numDocs),
      encoded.map((e) => e.nums),
      encoded.map((e) => e.kwCount),
      encoded.map((e) => e.kwDocs),
      encoded.map((e) => e.kwOrds),
      encoded.map((e) => e.dict),
    ],
  );
}

/** Rebuilds an index's columns from its doc_values rows (migration 0027's function; repair, tests). */
export async function rebuildDocValueColumns(
  client: { query(text: string, values?: unknown[]): Promise<unknown> },
  indexId: string,
): Promise<void> {
  await client.query('SELECT doc_value_columns_rebuild($1)', [indexId]);
}
