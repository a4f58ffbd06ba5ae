import { decodeChunk, type DocValueChunk, type DocValueChunkRow } from './doc-value-chunk';

/** Anything with pg's query method. */
interface QueryRunner {
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * The chunks (migration 0027) holding any value of these fields of index `indexId`, ascending: what a
 * columnar aggregation walks, a page of them at a time (readDocValueChunks).
 */
export async function listDocValueChunks(
  db: QueryRunner,
  indexId: string,
  fieldIds: number[],
): Promise<number[]> {
  const { rows } = await db.query<{ chunks: string | null }>(
    `SELECT string_agg(c::text, ',' ORDER BY c) AS chunks
       FROM (SELECT DISTINCT chunk AS c FROM doc_value_columns WHERE index_id = $1 AND field_id = ANY($2::int[])) x`,
    [indexId, fieldIds],
  );
  const list = rows[0]?.chunks;
  return list ? list.split(',').map(Number) : [];
}

/** The given chunks of these fields, decoded: field id → chunk number → chunk. */
export async function readDocValueChunks(
  db: QueryRunner,
  indexId: string,
  fieldIds: number[],
  chunks: number[],
): Promise<Map<number, Map<number, DocValueChunk>>> {
  const { rows } = await db.query<DocValueChunkRow & { field_id: number }>(
    `SELECT field_id, chunk, num_docs, nums, kw_docs, kw_ords, dict FROM doc_value_columns
      WHERE index_id = $1 AND field_id = ANY($2::int[]) AND chunk = ANY($3::bigint[])`,
    [indexId, fieldIds, chunks],
  );
  const out = new Map<number, Map<number, DocValueChunk>>(fieldIds.map((f) => [f, new Map()]));
  for (const row of rows) out.get(row.field_id)?.set(Number(row.chunk), decodeChunk(row));
  return out;
}

/**
 * The doc keys the SQL returns (its own `$1…$n`), ascending and distinct, packed by Postgres into one
 * bytea of int8s: 8 bytes a matched document in Node, instead of a row each.
 */
export async function readSortedDocKeys(
  db: QueryRunner,
  sql: string,
  params: unknown[],
): Promise<Float64Array> {
  const { rows } = await db.query<{ keys: Buffer | null }>(
    `SELECT string_agg(int8send(k), ''::bytea ORDER BY k) AS keys
       FROM (SELECT DISTINCT m.doc_key AS k FROM (${sql}) m) d`,
    params,
  );
  const packed = rows[0]?.keys;
  if (!packed) return new Float64Array(0);
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const keys = new Float64Array(packed.byteLength / 8);
  for (let i = 0; i < keys.length; i++) keys[i] = view.getInt32(i * 8) * 2 ** 32 + view.getUint32(i * 8 + 4);
  return keys;
}
