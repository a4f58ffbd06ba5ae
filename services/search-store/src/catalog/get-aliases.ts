import type { Queryable } from '../storage/queryable';
import { simpleMatch } from '../text/simple-match';
import { checkIndexBlocks } from './index-blocks';
import { CLOSED_ALLOWED, loadCatalog, resolveIndexExpression } from './index-expression';
import { aliasView } from './index-view';

/** An index and its aliases as GET /_alias shows them (alias name → its set properties). */
export interface IndexAliases {
  index: string;
  aliases: Record<string, Record<string, unknown>>;
}

/** GET /_aliases: every index but the hidden (dot) ones, with all its aliases. */
export async function getAllAliases(db: Queryable): Promise<IndexAliases[]> {
  const catalog = await loadCatalog(db);
  checkIndexBlocks(resolveIndexExpression(catalog, '_all', CLOSED_ALLOWED), 'metadata_read');
  return catalog.indices
    .filter((i) => !i.name.startsWith('.'))
    .map((i) => ({ index: i.name, aliases: aliasView(catalog, i) }));
}

/**
 * ES "Get alias API": the aliases of the indices `expression` names that match `names` (wildcards,
 * `_all`). Without names every index is listed; with them, only the indices that hold one. `missing`
 * lists the concrete names no index holds (Elasticsearch then answers 404 beside what was found).
 */
export async function getAliases(
  db: Queryable,
  expression: string,
  names: string[] | undefined,
): Promise<{ found: IndexAliases[]; missing: string[] }> {
  const catalog = await loadCatalog(db);
  const indices = resolveIndexExpression(catalog, expression, CLOSED_ALLOWED);
  checkIndexBlocks(indices, 'metadata_read');
  const seen = new Set<string>();
  const found: IndexAliases[] = [];
  for (const index of indices) {
    const all = aliasView(catalog, index);
    const picked = Object.fromEntries(
      Object.entries(all).filter(([alias]) => {
        const hit = !names || names.some((r) => r === '_all' || simpleMatch(r, alias));
        if (hit) seen.add(alias);
        return hit;
      }),
    );
    if (!names || Object.keys(picked).length > 0) found.push({ index: index.name, aliases: picked });
  }
  const missing = (names ?? []).filter((r) => !r.includes('*') && r !== '_all' && !seen.has(r));
  return { found, missing };
}
