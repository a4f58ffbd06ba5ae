import type { Pool, PoolClient } from 'pg';
import type { IndexRow } from '../query/index-reader';
import { readBlocked } from '../es-errors';
import { resolveIndexExpression, type Catalog } from '../catalog/index-expression';
import { loadSearchCatalog } from './load-search-catalog';
import { simpleMatch } from '../text/simple-match';

/**
 * The indices a search runs on: the document store's index-expression resolver (comma lists,
 * wildcards, aliases, `_all`, exclusions; 404 for a missing concrete name), plus alias filters: an
 * index reached only through filtered aliases is searched with those filters (ES "Filtered aliases").
 */
export async function resolveSearchIndices(
  db: Pool | PoolClient,
  expression: string | undefined,
  options: { ignoreUnavailable?: boolean; allowNoIndices?: boolean } = {},
): Promise<IndexRow[]> {
  return resolveFromCatalog(await loadSearchCatalog(db, expression ?? '_all'), expression, options);
}

/** resolveSearchIndices over a catalog already loaded (loadSearchCatalog). */
export function resolveFromCatalog(
  catalog: Catalog,
  expression: string | undefined,
  options: { ignoreUnavailable?: boolean; allowNoIndices?: boolean } = {},
): IndexRow[] {
  const indices = resolveIndexExpression(catalog, expression ?? '_all', options);
  // index.blocks.read refuses searches as it refuses document reads (ES "Index blocks").
  const blocked = indices.find((index) => index.settings['index.blocks.read'] === 'true');
  if (blocked) throw readBlocked(blocked.name);
  return indices.map((index) => {
    const row: IndexRow = {
      index_id: index.indexId,
      name: index.name,
      uuid: index.uuid,
      mappings: index.mappings,
      settings: index.settings,
    };
    const filter = aliasFilterFor(catalog, expression ?? '_all', index.indexId, index.name);
    if (filter !== undefined) row.aliasFilter = filter;
    return row;
  });
}

function aliasFilterFor(catalog: Catalog, expression: string, indexId: string, indexName: string): unknown {
  const parts = expression.split(',').map((p) => p.trim());
  const direct = parts.some(
    (p) => p === indexName || p === '_all' || (p.includes('*') && simpleMatch(p, indexName)),
  );
  if (direct) return undefined;
  const links = catalog.aliases.filter(
    (a) =>
      a.indexId === indexId &&
      parts.some((p) => p === a.alias || (p.includes('*') && simpleMatch(p, a.alias))),
  );
  // Any alias without a filter exposes the whole index.
  if (links.length === 0 || links.some((a) => a.filter === null)) return undefined;
  return links.length === 1 ? links[0]!.filter : { bool: { should: links.map((a) => a.filter) } };
}
