import type { Pool, PoolClient } from 'pg';
import { compileMatchedDocs } from './compile-matched-docs';
import { openIndexReaders, type IndexRow } from '../index-reader';
import type { Query } from '../query-ast';
import { SqlParams } from './sql-params';

/**
 * Reindex's `source.query` (ES "Reindex API": any query the search API takes) through the engine's
 * planner: SQL yielding the matched `(index_id, doc_key)` of the source indices, unscored, for the
 * document store's set-based `INSERT … SELECT` copy to join against.
 */
export async function compileReindexSelection(
  db: Pool | PoolClient,
  sources: IndexRow[],
  query: Query,
): Promise<{ text: string; values: unknown[] }> {
  const readers = await openIndexReaders(db, sources);
  const params = new SqlParams();
  const text = await compileMatchedDocs(db, readers, { query }, params, Date.now(), false);
  return { text, values: params.values };
}
