import { newDictionary } from '@acme/common';
import { simpleMatcher } from '../text/simple-match';

/**
 * `_source` filtering as Elasticsearch applies it to GET (`_source_includes`/`_source_excludes`), update
 * (`_source` in the response) and search hits (the `_source` option): include and exclude patterns are
 * dotted paths with `*` wildcards; an included object brings its whole subtree; excludes win; objects and
 * arrays left empty by an include list are dropped. One module for the document store and the engine.
 */
export function filterSource(
  source: Record<string, unknown>,
  includes: readonly string[],
  excludes: readonly string[],
): Record<string, unknown> {
  if (includes.length === 0 && excludes.length === 0) return source;
  const inc = includes.map(matchPathPattern);
  const exc = excludes.map(matchPathPattern);
  const matches = (tests: ((p: string) => boolean)[], path: string): boolean => tests.some((t) => t(path));
  const visit = (value: unknown, path: string, included: boolean): unknown => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      // Keys are field names (`__proto__` included): no prototype, so assignment defines a key.
      const out = newDictionary<unknown>();
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (matches(exc, childPath)) continue;
        const kept = visit(child, childPath, included || matches(inc, childPath));
        if (kept !== undefined) out[key] = kept;
      }
      return Object.keys(out).length > 0 || included || path === '' ? out : undefined;
    }
    if (Array.isArray(value)) {
      const items = value.map((item) => visit(item, path, included)).filter((item) => item !== undefined);
      return items.length > 0 || included ? items : undefined;
    }
    return included ? value : undefined;
  };
  return visit(source, '', inc.length === 0) as Record<string, unknown>;
}

/** `*` matches any run of characters, dots included (ES's `Regex.simpleMatch`). */
function matchPathPattern(pattern: string): (path: string) => boolean {
  return simpleMatcher(pattern);
}
