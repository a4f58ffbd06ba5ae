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

const PARTS = ['num_docs', 'nums', 'kw_docs', 'kw_ords', 'dict'] as const;

/** The given chunks of these fields, decoded: field id → chunk number → chunk. */
export async function readDocValueChunks(
  db: QueryRunner,
  indexId: string,
  fieldIds: number[],
  chunks: number[],
): Promise<Map<number, Map<number, DocValueChunk>>> {
  // base64, not bytea's hex text: a third less to send and parse (~30 % faster reads of 200k values).
  const { rows } = await db.query<
    Record<(typeof PARTS)[number], string | null> & { field_id: number; chunk: string }
  >(
    `SELECT field_id, chunk, ${PARTS.map((p) => `encode(${p}, 'base64') AS ${p}`).join(', ')} FROM doc_value_columns
      WHERE index_id = $1 AND field_id = ANY($2::int[]) AND chunk = ANY($3::bigint[])`,
    [indexId, fieldIds, chunks],
  );
  const bytes = (text: string | null): Buffer | null => (text === null ? null : Buffer.from(text, 'base64'));
  const out = new Map<number, Map<number, DocValueChunk>>(fieldIds.map((f) => [f, new Map()]));
  for (const row of rows) {
    const packed: DocValueChunkRow = {
      chunk: row.chunk,
      num_docs: bytes(row.num_docs),
      nums: bytes(row.nums),
      kw_docs: bytes(row.kw_docs),
      kw_ords: bytes(row.kw_ords),
      dict: bytes(row.dict),
    };
    out.get(row.field_id)?.set(Number(row.chunk), decodeChunk(packed));
  }
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
