import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression } from './index-expression';

/**
 * ES "Flush API" and "Force merge API": every acknowledged write is already committed in Postgres (no
 * translog to flush) and there are no segments to merge, so both only resolve their indices for the
 * `_shards` they acknowledge (a missing concrete name is a 404, as in ES).
 */
export async function maintainIndices(db: Queryable, expression: string): Promise<IndexRecord[]> {
  return resolveIndexExpression(await loadCatalog(db), expression);
}
