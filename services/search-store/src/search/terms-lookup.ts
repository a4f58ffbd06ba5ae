import type { Query, TermsLookup } from '../query/query-ast';
import type { SearchRequest } from '../query/parse/search-request';
import type { Queryable } from '../storage/queryable';
import { getDocument } from '../write/get-document';

/**
 * ES terms lookup (TermsQueryBuilder.fetch): before the query runs, each `terms` query with a lookup
 * gets the values at its `path` in the looked-up document, read through the Get API's use case (so
 * a missing index is its index_not_found_exception and a read block its error). A missing document,
 * or one without the path, gives no values: the terms query matches nothing, as in ES. Routing is
 * accepted and has no effect (one shard). Every other query is returned as it is.
 */
export async function resolveTermsLookups(db: Queryable, request: SearchRequest): Promise<SearchRequest> {
  const lookups: TermsLookup[] = [];
  collect(request.query, lookups);
  if (request.postFilter) collect(request.postFilter, lookups);
  if (lookups.length === 0) return request;
  const values = new Map<TermsLookup, (string | number | boolean)[]>();
  for (const lookup of lookups) {
    const { doc } = await getDocument(db, lookup.index, lookup.id);
    values.set(lookup, doc ? extractRawValues(lookup.path, doc.source) : []);
  }
  const fill = (query: Query): Query => replace(query, values) as Query;
  return {
    ...request,
    query: fill(request.query),
    ...(request.postFilter ? { postFilter: fill(request.postFilter) } : {}),
  };
}

/** A query tree is plain data: walk every object and array (compound kinds need no listing here). */
function collect(node: unknown, out: TermsLookup[]): void {
  if (Array.isArray(node)) node.forEach((n) => collect(n, out));
  else if (node !== null && typeof node === 'object') {
    const query = node as { kind?: unknown; lookup?: TermsLookup };
    if (query.kind === 'terms' && query.lookup) out.push(query.lookup);
    else Object.values(node).forEach((v) => collect(v, out));
  }
}

function replace(node: unknown, values: Map<TermsLookup, (string | number | boolean)[]>): unknown {
  if (Array.isArray(node)) return node.map((n) => replace(n, values));
  if (node === null || typeof node !== 'object') return node;
  const query = node as { kind?: unknown; lookup?: TermsLookup };
  if (query.kind === 'terms' && query.lookup) return { ...node, values: values.get(query.lookup) ?? [] };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, replace(v, values)]));
}

/**
 * XContentMapValues.extractRawValues: the values at a dotted path, through nested objects and
 * arrays, arrays flattened; a key may itself contain dots (`{"a.b": 1}` answers `a.b`).
 */
export function extractRawValues(path: string, source: unknown): (string | number | boolean)[] {
  const out: (string | number | boolean)[] = [];
  const walk = (node: unknown, parts: string[]): void => {
    if (Array.isArray(node)) {
      node.forEach((n) => walk(n, parts));
      return;
    }
    if (parts.length === 0) {
      if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') out.push(node);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    for (let i = 1; i <= parts.length; i++) {
      const key = parts.slice(0, i).join('.');
      if (Object.hasOwn(object, key)) walk(object[key], parts.slice(i));
    }
  };
  walk(source, path.split('.'));
  return out;
}
