import type { Query } from '../query-ast';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The query's `_name` (ES AbstractQueryBuilder.NAME_FIELD), beside its other parameters or, for the
 * single-field queries (`term`, `match`, `range`, …), inside the field's object.
 */
function nameIn(spec: unknown): string | undefined {
  if (!isObject(spec)) return undefined;
  if (typeof spec._name === 'string') return spec._name;
  const keys = Object.keys(spec).filter((k) => k !== 'boost');
  if (keys.length !== 1) return undefined;
  const inner = spec[keys[0]!];
  return isObject(inner) && typeof inner._name === 'string' ? inner._name : undefined;
}

/** The parsed query with the name its JSON gave it, for `matched_queries`. */
export function withQueryName(query: Query, spec: unknown): Query {
  const name = nameIn(spec);
  return name === undefined ? query : { ...query, _name: name };
}

/** Every named query in a tree, compound and leaf, in the order met (the first of a name wins). */
export function namedQueries(root: Query | undefined): Map<string, Query> {
  const out = new Map<string, Query>();
  const seen = new Set<object>();
  const visit = (node: unknown, depth: number): void => {
    // The parser bounds query depth; the bound here guards the walk over other objects of the tree.
    if (depth > 200 || node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
      return;
    }
    if (node instanceof Map) return;
    const named = (node as { _name?: unknown; kind?: unknown })._name;
    if (typeof named === 'string' && typeof (node as { kind?: unknown }).kind === 'string') {
      if (!out.has(named)) out.set(named, node as Query);
    }
    for (const value of Object.values(node)) visit(value, depth + 1);
  };
  visit(root, 0);
  return out;
}
