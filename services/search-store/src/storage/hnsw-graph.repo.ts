import type { Queryable } from './queryable';

/**
 * The vector tables of migration 0017: `dense_vectors` (the stored vectors), `hnsw_nodes` (each
 * node's level and neighbour lists by doc key) and `hnsw_graphs` (entry point and token per field).
 * index/vector-writer.ts writes them inside the write's transaction; index/hnsw-graph-cache.ts reads.
 */
export interface GraphRow {
  entryDocKey: number | null;
  maxLevel: number;
  token: string;
}

/** Rows loaded a page at a time: a 100k × 384 graph is 150 MB of vectors, never one result set. */
const LOAD_PAGE = 4096;

export async function saveVectors(
  db: Queryable,
  indexId: string,
  field: string,
  docKeys: number[],
  vectors: Buffer[],
): Promise<void> {
  if (docKeys.length === 0) return;
  await db.query(
    `INSERT INTO dense_vectors (index_id, field, doc_key, vec)
     SELECT $1, $2, k, v FROM unnest($3::bigint[], $4::bytea[]) AS t(k, v)`,
    [indexId, field, docKeys, vectors],
  );
}

export async function deleteVectors(
  db: Queryable,
  indexId: string,
  field: string,
  docKeys: number[],
): Promise<void> {
  await db.query(
    `DELETE FROM dense_vectors WHERE index_id = $1 AND field = $2 AND doc_key = ANY($3::bigint[])`,
    [indexId, field, docKeys],
  );
}

/** Whether a field's graph has tombstones (graph compaction's cheap check). */
export async function hasTombstones(db: Queryable, indexId: string, field: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM hnsw_nodes WHERE index_id = $1 AND field = $2 AND deleted LIMIT 1`,
    [indexId, field],
  );
  return rows.length > 0;
}

/** Removes nodes (compaction of tombstones). */
export async function deleteNodes(
  db: Queryable,
  indexId: string,
  field: string,
  docKeys: number[],
): Promise<void> {
  if (docKeys.length === 0) return;
  await db.query(
    `DELETE FROM hnsw_nodes WHERE index_id = $1 AND field = $2 AND doc_key = ANY($3::bigint[])`,
    [indexId, field, docKeys],
  );
}

/** Marks nodes deleted (tombstones); returns the doc keys that were live nodes. */
export async function tombstoneNodes(
  db: Queryable,
  indexId: string,
  field: string,
  docKeys: number[],
): Promise<number[]> {
  const { rows } = await db.query<{ doc_key: string }>(
    `UPDATE hnsw_nodes SET deleted = true
     WHERE index_id = $1 AND field = $2 AND doc_key = ANY($3::bigint[]) AND NOT deleted RETURNING doc_key`,
    [indexId, field, docKeys],
  );
  return rows.map((r) => Number(r.doc_key));
}

/**
 * Gives the graph a new token (creating its row), locking it for the transaction; returns the token
 * it had (null for a new graph), which says whether this instance's cache is still the graph.
 */
export async function claimGraph(
  db: Queryable,
  indexId: string,
  field: string,
  token: string,
): Promise<string | null> {
  const { rows } = await db.query<{ token: string }>(
    `SELECT token FROM hnsw_graphs WHERE index_id = $1 AND field = $2 FOR UPDATE`,
    [indexId, field],
  );
  await db.query(
    `INSERT INTO hnsw_graphs (index_id, field, token) VALUES ($1, $2, $3)
     ON CONFLICT (index_id, field) DO UPDATE SET token = EXCLUDED.token`,
    [indexId, field, token],
  );
  return rows[0]?.token ?? null;
}

export async function saveEntry(
  db: Queryable,
  indexId: string,
  field: string,
  entryDocKey: number | null,
  maxLevel: number,
): Promise<void> {
  await db.query(
    `UPDATE hnsw_graphs SET entry_doc_key = $3, max_level = $4 WHERE index_id = $1 AND field = $2`,
    [indexId, field, entryDocKey, maxLevel],
  );
}

/** Writes nodes' levels and neighbour lists (new nodes and the ones whose lists changed). */
export async function saveNodes(
  db: Queryable,
  indexId: string,
  field: string,
  nodes: { docKey: number; level: number; neighbours: Buffer }[],
): Promise<void> {
  if (nodes.length === 0) return;
  await db.query(
    `INSERT INTO hnsw_nodes (index_id, field, doc_key, level, neighbours)
     SELECT $1, $2, k, l, n FROM unnest($3::bigint[], $4::int2[], $5::bytea[]) AS t(k, l, n)
     ON CONFLICT (index_id, field, doc_key) DO UPDATE SET neighbours = EXCLUDED.neighbours`,
    [indexId, field, nodes.map((n) => n.docKey), nodes.map((n) => n.level), nodes.map((n) => n.neighbours)],
  );
}

export async function findGraph(
  db: Queryable,
  indexId: string,
  field: string,
): Promise<GraphRow | undefined> {
  const { rows } = await db.query<{ entry_doc_key: string | null; max_level: number; token: string }>(
    `SELECT entry_doc_key, max_level, token FROM hnsw_graphs WHERE index_id = $1 AND field = $2`,
    [indexId, field],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    entryDocKey: row.entry_doc_key === null ? null : Number(row.entry_doc_key),
    maxLevel: row.max_level,
    token: row.token,
  };
}

export interface StoredVectorRow {
  docKey: number;
  vec: Buffer;
  level: number | null;
  neighbours: Buffer | null;
  deleted: boolean;
}

/** Every vector of a field with its node (if any), in doc key order, a page at a time. */
export async function* loadVectorPages(
  db: Queryable,
  indexId: string,
  field: string,
): AsyncGenerator<StoredVectorRow[]> {
  let after = -1;
  for (;;) {
    const { rows } = await db.query<{
      doc_key: string;
      vec: Buffer;
      level: number | null;
      neighbours: Buffer | null;
      deleted: boolean | null;
    }>(
      `SELECT v.doc_key, v.vec, n.level, n.neighbours, n.deleted
       FROM dense_vectors v
       LEFT JOIN hnsw_nodes n ON n.index_id = v.index_id AND n.field = v.field AND n.doc_key = v.doc_key
       WHERE v.index_id = $1 AND v.field = $2 AND v.doc_key > $3
       ORDER BY v.doc_key LIMIT ${LOAD_PAGE}`,
      [indexId, field, after],
    );
    if (rows.length === 0) return;
    yield rows.map((r) => ({
      docKey: Number(r.doc_key),
      vec: r.vec,
      level: r.level,
      neighbours: r.neighbours,
      deleted: r.deleted === true,
    }));
    after = Number(rows[rows.length - 1]!.doc_key);
    if (rows.length < LOAD_PAGE) return;
  }
}

/**
 * The stored vectors of some documents (the exact path: script_score over a query's matches). Keys
 * sorted, one statement per page so a large match set never arrives as one result.
 */
export async function findVectors(
  db: Queryable,
  indexId: string,
  field: string,
  docKeys: number[],
): Promise<Map<number, Buffer>> {
  const out = new Map<number, Buffer>();
  for (let i = 0; i < docKeys.length; i += LOAD_PAGE) {
    const { rows } = await db.query<{ doc_key: string; vec: Buffer }>(
      `SELECT doc_key, vec FROM dense_vectors WHERE index_id = $1 AND field = $2 AND doc_key = ANY($3::bigint[])`,
      [indexId, field, docKeys.slice(i, i + LOAD_PAGE)],
    );
    for (const row of rows) out.set(Number(row.doc_key), row.vec);
  }
  return out;
}

export const VECTOR_TABLES = ['dense_vectors', 'hnsw_nodes', 'hnsw_graphs'] as const;

/** Clone: the vectors, nodes and graphs of one index under another id (doc keys are kept). */
export async function copyVectorTables(db: Queryable, fromIndexId: string, toIndexId: string): Promise<void> {
  await db.query(
    `INSERT INTO dense_vectors (index_id, field, doc_key, vec) SELECT $2, field, doc_key, vec FROM dense_vectors WHERE index_id = $1`,
    [fromIndexId, toIndexId],
  );
  await db.query(
    `INSERT INTO hnsw_nodes (index_id, field, doc_key, level, neighbours, deleted)
     SELECT $2, field, doc_key, level, neighbours, deleted FROM hnsw_nodes WHERE index_id = $1`,
    [fromIndexId, toIndexId],
  );
  await db.query(
    `INSERT INTO hnsw_graphs (index_id, field, entry_doc_key, max_level, token)
     SELECT $2, field, entry_doc_key, max_level, gen_random_uuid() FROM hnsw_graphs WHERE index_id = $1`,
    [fromIndexId, toIndexId],
  );
}

export async function deleteVectorTables(db: Queryable, indexId: string): Promise<void> {
  for (const table of VECTOR_TABLES) await db.query(`DELETE FROM ${table} WHERE index_id = $1`, [indexId]);
}
