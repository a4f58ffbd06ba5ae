import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression } from './index-expression';

/**
 * ES "Refresh API": writes are visible when they return (each commits), so a refresh only resolves
 * its indices for the `_shards` it acknowledges.
 */
export async function refreshIndices(db: Queryable, expression: string): Promise<IndexRecord[]> {
  return resolveIndexExpression(await loadCatalog(db), expression);
}
