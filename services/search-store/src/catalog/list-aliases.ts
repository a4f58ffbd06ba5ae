import { findAllAliases, type AliasRecord } from '../storage/aliases.repo';
import type { Queryable } from '../storage/queryable';
import { simpleMatcher } from '../text/simple-match';

/**
 * ES "cat aliases API": every alias link (hidden indices included: its `expand_wildcards` defaults to
 * `all`), or those whose alias matches one of `names` (wildcards, `_all`). A name nothing matches adds
 * no row; the cat API does not answer 404 for it.
 */
export async function listAliases(db: Queryable, names: string[] | undefined): Promise<AliasRecord[]> {
  const links = await findAllAliases(db);
  if (!names) return links;
  const matchers = names.map((name) => (name === '_all' ? () => true : simpleMatcher(name)));
  return links.filter((link) => matchers.some((matches) => matches(link.alias)));
}
