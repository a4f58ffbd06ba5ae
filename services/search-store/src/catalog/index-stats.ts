import { countDocuments, findStoreSizes } from '../storage/documents.repo';
import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression, type ResolveOptions } from './index-expression';

/** An index with the figures `_cat/indices` shows: live documents and bytes in Postgres. */
export interface IndexStats {
  index: IndexRecord;
  docsCount: number;
  storeSize: number;
}

/** ES "Index stats" as `_cat/indices` reads them, for the indices an expression names. */
export async function getIndexStats(
  db: Queryable,
  expression: string,
  options: ResolveOptions = {},
): Promise<IndexStats[]> {
  const indices = resolveIndexExpression(await loadCatalog(db), expression, options);
  const ids = indices.map((i) => i.indexId);
  const [counts, sizes] = await Promise.all([countDocuments(db, ids), findStoreSizes(db, ids)]);
  return indices.map((index) => ({
    index,
    docsCount: counts.get(index.indexId) ?? 0,
    storeSize: sizes.get(index.indexId) ?? 0,
  }));
}
