import { countDocuments } from '../storage/documents.repo';
import type { Queryable } from '../storage/queryable';
import { checkIndexBlocks } from './index-blocks';
import { loadCatalog, resolveIndexExpression } from './index-expression';

/**
 * ES "cat count API": the live documents of the indices an expression names (a missing concrete name
 * is a 404). It is a count search in ES, so the read block applies.
 */
export async function countIndexedDocuments(db: Queryable, expression: string): Promise<number> {
  const indices = resolveIndexExpression(await loadCatalog(db), expression);
  checkIndexBlocks(indices, 'read');
  if (indices.length === 0) return 0;
  const counts = await countDocuments(
    db,
    indices.map((i) => i.indexId),
  );
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}
