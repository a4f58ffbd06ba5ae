import { matchFieldPattern } from './index-reader';
import type { SourceFilter } from './search-request';

/**
 * `_source` filtering as Elasticsearch applies it: include/exclude patterns with `*` on dotted paths;
 * an included object brings its whole subtree; excludes win; fields left empty are dropped.
 */
export function filterSource(
  source: Record<string, unknown>,
  filter: SourceFilter,
): Record<string, unknown> | undefined {
  if (!filter.enabled) return undefined;
  if (filter.includes.length === 0 && filter.excludes.length === 0) return source;
  const includes = filter.includes.map(matchFieldPattern);
  const excludes = filter.excludes.map(matchFieldPattern);
  const matches = (tests: ((p: string) => boolean)[], path: string): boolean => tests.some((t) => t(path));
  const visit = (value: unknown, path: string, included: boolean): unknown => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (matches(excludes, childPath)) continue;
        const kept = visit(child, childPath, included || matches(includes, childPath));
        if (kept !== undefined) out[key] = kept;
      }
      return Object.keys(out).length > 0 || (included && path !== '') ? out : path === '' ? out : undefined;
    }
    if (Array.isArray(value)) {
      const items = value.map((item) => visit(item, path, included)).filter((item) => item !== undefined);
      return items.length > 0 || included ? items : undefined;
    }
    return included ? value : undefined;
  };
  return visit(source, '', includes.length === 0) as Record<string, unknown>;
}
