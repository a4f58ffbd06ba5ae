import type { PoolClient } from 'pg';
import type { AnalyzedBatch } from './batch-analyzer';

/**
 * The `nested_docs` rows (migration 0018): where each nested object's doc key sits. Written and
 * removed by the IndexWriter in the write's transaction, with the postings of the same keys.
 */

/**
 * Doc keys for a batch's nested objects, ascending, drawn after its documents' keys: the caller holds
 * the index's row lock, so they are above every key the index holds, as the blocks need.
 */
export async function drawNestedKeys(client: PoolClient, count: number): Promise<number[]> {
  if (count === 0) return [];
  const { rows } = await client.query<{ k: string }>(
    "SELECT nextval('doc_key_seq') AS k FROM generate_series(1, $1) ORDER BY 1",
    [count],
  );
  return rows.map((r) => Number(r.k));
}

/** Saves where each nested object of a batch sits; `docKeys[ordinal]` as for its postings. */
export async function saveNestedDocs(
  client: PoolClient,
  indexId: string,
  batch: AnalyzedBatch,
  docKeys: ArrayLike<number>,
): Promise<void> {
  if (batch.nested.length === 0) return;
  const { rootCount, nested } = batch;
  const rootOf = (ordinal: number): number => {
    let at = ordinal;
    // Parents come first and have smaller ordinals: the walk ends within the nesting depth.
    while (at >= rootCount) at = nested[at - rootCount]!.parent;
    return at;
  };
  const keys: number[] = [];
  const roots: number[] = [];
  const parents: number[] = [];
  const paths: string[] = [];
  const offsets: number[] = [];
  nested.forEach((n, i) => {
    keys.push(docKeys[rootCount + i]!);
    roots.push(docKeys[rootOf(n.parent)]!);
    parents.push(docKeys[n.parent]!);
    paths.push(n.path);
    offsets.push(n.offset);
  });
  await client.query(
    `INSERT INTO nested_docs (index_id, doc_key, root_key, parent_key, path, "offset")
     SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::int[])`,
    [indexId, keys, roots, parents, paths, offsets],
  );
}

/** Deletes the nested objects of these documents and returns their doc keys (their postings go too). */
export async function removeNestedDocs(
  client: PoolClient,
  indexId: string,
  rootKeys: string[],
): Promise<string[]> {
  const { rows } = await client.query<{ doc_key: string }>(
    'DELETE FROM nested_docs WHERE index_id = $1 AND root_key = ANY($2::bigint[]) RETURNING doc_key',
    [indexId, rootKeys],
  );
  return rows.map((r) => r.doc_key);
}

export async function copyNestedDocs(
  client: PoolClient,
  fromIndexId: string,
  toIndexId: string,
): Promise<void> {
  await client.query(
    `INSERT INTO nested_docs (index_id, doc_key, root_key, parent_key, path, "offset")
     SELECT $2, doc_key, root_key, parent_key, path, "offset" FROM nested_docs WHERE index_id = $1`,
    [fromIndexId, toIndexId],
  );
}

export async function dropNestedDocs(client: PoolClient, indexId: string): Promise<void> {
  await client.query('DELETE FROM nested_docs WHERE index_id = $1', [indexId]);
}
