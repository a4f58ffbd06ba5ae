import type { Pool, PoolClient } from 'pg';
import type { IndexContext, IndexWriter } from '../index/index-writer';
import { lockIndices, type IndexRecord } from '../storage/indices.repo';
import { inTransaction, type Queryable } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression } from './index-expression';

/**
 * ES "Flush API" and "Force merge API": every acknowledged write is already committed in Postgres (no
 * translog to flush) and there are no segments to merge, so both only resolve their indices for the
 * `_shards` they acknowledge (a missing concrete name is a 404, as in ES).
 */
export async function maintainIndices(db: Queryable, expression: string): Promise<IndexRecord[]> {
  return resolveIndexExpression(await loadCatalog(db), expression);
}

/** An IndexWriter may drop what deletes left behind (index-writer.ts: the HNSW graphs' tombstones). */
interface MaybeCompactingIndexWriter extends IndexWriter {
  compactIndex?(client: PoolClient, index: IndexContext, maxNumSegments?: number): Promise<number>;
}

/**
 * ES "Force merge API": merging segments expunges deleted documents. Here the documents and postings
 * are gone at the delete already; what a delete leaves are the HNSW graphs' tombstones (ways through
 * the graph kept for searches), so a force merge compacts the graphs, and merges the postings' small
 * blocks down to `max_num_segments` per term (index/segment-merge.ts; unset: what the background
 * policy would merge), one index per transaction under its row lock (writers wait, searches go on in
 * their snapshots).
 */
export async function forceMergeIndices(
  pool: Pool,
  writer: IndexWriter,
  expression: string,
  maxNumSegments?: number,
): Promise<IndexRecord[]> {
  const indices = await maintainIndices(pool, expression);
  const compacting = writer as MaybeCompactingIndexWriter;
  if (!compacting.compactIndex) return indices;
  for (const index of indices) {
    if (index.closed) continue;
    await inTransaction(pool, async (client) => {
      const [locked] = await lockIndices(client, [index.indexId]);
      if (!locked) return;
      await compacting.compactIndex!(
        client,
        {
          indexId: locked.indexId,
          name: locked.name,
          mappings: locked.mappings,
          settings: locked.settings,
        },
        maxNumSegments,
      );
    });
  }
  return indices;
}
