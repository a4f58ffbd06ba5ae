import type { AliasRecord } from '../storage/aliases.repo';
import { findAliasesByName, findAllAliases } from '../storage/aliases.repo';
import {
  findAllIndices,
  findIndicesById,
  findIndicesByName,
  type IndexRecord,
} from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { illegalArgument, indexClosed, indexNotFound } from '../es-errors';
import { simpleMatcher } from '../text/simple-match';

/** The catalog an index expression resolves against: every index and alias. */
export interface Catalog {
  indices: IndexRecord[];
  aliases: AliasRecord[];
}

export async function loadCatalog(db: Queryable): Promise<Catalog> {
  const [indices, aliases] = await Promise.all([findAllIndices(db), findAllAliases(db)]);
  return { indices, aliases };
}

/**
 * The part of the catalog that concrete names (no wildcards) can reach: the indices by those names,
 * the aliases by those names and their indices. Two indexed lookups, whatever the catalog's size.
 */
export async function loadCatalogFor(db: Queryable, names: string[]): Promise<Catalog> {
  const [byName, aliases] = await Promise.all([findIndicesByName(db, names), findAliasesByName(db, names)]);
  const missing = [...new Set(aliases.map((a) => a.indexId))].filter(
    (id) => !byName.some((i) => i.indexId === id),
  );
  const viaAliases = missing.length > 0 ? await findIndicesById(db, missing) : [];
  return { indices: [...byName, ...viaAliases], aliases };
}

export interface ResolveOptions {
  /** A concrete name that does not exist is skipped instead of answering 404 (`ignore_unavailable`). */
  ignoreUnavailable?: boolean;
  /** When false, an expression that resolves to nothing is a 404 (`allow_no_indices`). */
  allowNoIndices?: boolean;
  /** The states wildcards expand to (`expand_wildcards`); open, not hidden, when absent. */
  expandWildcards?: WildcardStates;
  /**
   * Whether a closed index the expression reaches answers index_closed_exception (skipped under
   * `ignoreUnavailable`), ES's FORBID_CLOSED_INDICES: true (the default) for data reads and writes,
   * false for the metadata APIs that work on closed indices (get index, settings, aliases, delete…).
   */
  forbidClosed?: boolean;
}

/** ES `IndicesOptions.WildcardStates`. */
export interface WildcardStates {
  open: boolean;
  closed: boolean;
  hidden: boolean;
}

/**
 * Parses `expand_wildcards` (ES `WildcardStates.parseParameter`): a comma list of open, closed,
 * hidden, none, all; absent or empty keeps `defaults`.
 */
export function parseExpandWildcards(value: unknown, defaults: WildcardStates): WildcardStates {
  if (value === undefined || value === '') return defaults;
  const states: WildcardStates = { open: false, closed: false, hidden: false };
  for (const wildcard of String(value).split(',')) {
    if (wildcard === 'open') states.open = true;
    else if (wildcard === 'closed') states.closed = true;
    else if (wildcard === 'hidden') states.hidden = true;
    else if (wildcard === 'none') Object.assign(states, { open: false, closed: false, hidden: false });
    else if (wildcard === 'all') Object.assign(states, { open: true, closed: true, hidden: true });
    else throw illegalArgument(`No valid expand wildcard value [${wildcard}]`);
  }
  return states;
}

const OPEN_ONLY: WildcardStates = { open: true, closed: false, hidden: false };
/** Open and closed, not hidden: the default of the metadata APIs that work on closed indices. */
export const OPEN_AND_CLOSED: WildcardStates = { open: true, closed: true, hidden: false };
/** For the metadata APIs (aliases, settings, mappings, health): closed indices are reached, wildcards too. */
export const CLOSED_ALLOWED: ResolveOptions = { forbidClosed: false, expandWildcards: OPEN_AND_CLOSED };

/**
 * Resolves a multi-target expression (ES "Multi-target syntax"): comma lists, `*` wildcards, `_all`,
 * `-name` exclusions after a wildcard, and aliases (which expand to their indices). Wildcards skip
 * hidden indices (a leading `.` or `index.hidden: true`) unless the pattern starts with `.`. A missing concrete name is a 404.
 */
export function resolveIndexExpression(
  catalog: Catalog,
  expression: string,
  options: ResolveOptions = {},
): IndexRecord[] {
  const byName = new Map(catalog.indices.map((index) => [index.name, index]));
  const byId = new Map(catalog.indices.map((index) => [index.indexId, index]));
  const aliasNames = [...new Set(catalog.aliases.map((a) => a.alias))];
  const selected = new Map<string, IndexRecord>();
  const parts = expression === '' ? ['_all'] : expression.split(',');
  const states = options.expandWildcards ?? OPEN_ONLY;
  let sawWildcard = false;
  for (const part of parts) {
    if (part.startsWith('-') && sawWildcard) {
      const matches = simpleMatcher(part.slice(1));
      for (const [name] of selected) if (matches(name)) selected.delete(name);
      continue;
    }
    if (part === '_all' || part.includes('*')) {
      sawWildcard = true;
      const pattern = part === '_all' ? '*' : part;
      const matches = simpleMatcher(pattern);
      const hiddenOk = pattern.startsWith('.') || states.hidden;
      // A wildcard expands to the indices in the asked states only (ES expandToOpenClosed).
      const stateOk = (index: IndexRecord) => (index.closed ? states.closed : states.open);
      for (const index of catalog.indices) {
        const hidden = index.name.startsWith('.') || index.settings['index.hidden'] === 'true';
        if (matches(index.name) && (hiddenOk || !hidden) && stateOk(index)) selected.set(index.name, index);
      }
      for (const alias of aliasNames) {
        // A hidden alias is reached by wildcards only as hidden indices are (ES "Hidden data streams and indices").
        const hiddenAlias =
          !hiddenOk && catalog.aliases.some((a) => a.alias === alias && a.isHidden === true);
        if (part !== '_all' && matches(alias) && !hiddenAlias) {
          for (const link of catalog.aliases.filter((a) => a.alias === alias)) {
            const index = byId.get(link.indexId);
            if (index && stateOk(index)) selected.set(index.name, index);
          }
        }
      }
      continue;
    }
    const index = byName.get(part);
    if (index) {
      selected.set(index.name, index);
      continue;
    }
    const links = catalog.aliases.filter((a) => a.alias === part);
    if (links.length > 0) {
      for (const link of links) {
        const target = byId.get(link.indexId);
        if (target) selected.set(target.name, target);
      }
      continue;
    }
    if (!options.ignoreUnavailable) throw indexNotFound(part);
  }
  // IndexNameExpressionResolver#shouldTrackConcreteIndex: a closed index is an error for the APIs that
  // forbid closed indices, unless ignore_unavailable, which skips it instead.
  if (options.forbidClosed !== false) {
    for (const [name, index] of selected) {
      if (!index.closed) continue;
      if (!options.ignoreUnavailable) throw indexClosed(index);
      selected.delete(name);
    }
  }
  if (selected.size === 0 && options.allowNoIndices === false) throw indexNotFound(expression);
  return [...selected.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** True when the name is an alias (not an index) in the catalog. */
export function isAliasName(catalog: Catalog, name: string): boolean {
  return catalog.aliases.some((a) => a.alias === name);
}

/**
 * Where a write to `name` goes (ES "Write index"): an index; an alias's only index; or the alias's
 * `is_write_index:true` index. `undefined` means nothing by that name exists (auto-create).
 */
export function resolveWriteIndex(catalog: Catalog, name: string): IndexRecord | undefined {
  const index = catalog.indices.find((i) => i.name === name);
  if (index) return index;
  const links = catalog.aliases.filter((a) => a.alias === name);
  if (links.length === 0) return undefined;
  const explicit = links.find((a) => a.isWriteIndex === true);
  const target = explicit ?? (links.length === 1 && links[0]?.isWriteIndex !== false ? links[0] : undefined);
  if (!target) {
    throw illegalArgument(
      `no write index is defined for alias [${name}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index`,
    );
  }
  return catalog.indices.find((i) => i.indexId === target.indexId);
}
