import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { checkIndexBlocks } from './index-blocks';
import { loadCatalog, resolveIndexExpression, type Catalog, type ResolveOptions } from './index-expression';

/**
 * The indices an expression names, for a metadata read (GET index, mapping, settings, alias): the
 * METADATA_READ level of a block refuses them (TransportGetIndexAction and the other metadata reads).
 * The catalog comes along for views that show aliases.
 */
export async function getIndices(
  db: Queryable,
  expression: string,
  options: ResolveOptions = {},
): Promise<{ catalog: Catalog; indices: IndexRecord[] }> {
  const catalog = await loadCatalog(db);
  // The metadata reads work on closed indices (GetIndexRequest and the others do not forbid them).
  const indices = resolveIndexExpression(catalog, expression, { forbidClosed: false, ...options });
  checkIndexBlocks(indices, 'metadata_read');
  return { catalog, indices };
}
