import { listNestedPaths, scopesOf } from '../mapping/nested-mapping';
import type { IndexMapping } from '../mapping/mapping-types';

/**
 * The fields the documents of one nested scope index ('' = the root documents): a nested object's
 * fields belong to its path's objects (and, with `include_in_parent`/`include_in_root`, to its
 * parent's or the root's too). Outside its scope a field is unmapped, so a query on it matches
 * nothing, as in ES where it finds only nested documents and the search keeps only root ones.
 */
export function fieldsInScope<F extends { nested?: string }>(
  all: Map<string, F>,
  mappings: IndexMapping,
  scope: string,
): Map<string, F> {
  const paths = listNestedPaths(mappings);
  if (paths.length === 0) return all;
  const out = new Map<string, F>();
  for (const [path, field] of all)
    if (scopesOf(field.nested ?? '', paths).includes(scope)) out.set(path, field);
  return out;
}
