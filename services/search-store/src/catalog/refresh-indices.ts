import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { loadCatalog, resolveIndexExpression } from './index-expression';

/**
 * ES "Refresh API": writes are visible on the primary when they return (each commits), so a refresh
 * resolves its indices for the `_shards` it acknowledges; the route then waits for the read replicas
 * (storage/replica-set.ts).
 */
export async function refreshIndices(db: Queryable, expression: string): Promise<IndexRecord[]> {
  return resolveIndexExpression(await loadCatalog(db), expression);
}
