import { newDictionary } from '@acme/common';
import { simpleMatch } from '../text/simple-match';

/**
 * `?filter_path` (Elasticsearch "Response filtering"): comma-separated dotted paths with `*` (one
 * level, or part of a name) and `**` (any depth); a leading `-` excludes. Arrays are transparent: a
 * path addresses the objects inside them. With inclusions, nothing matching gives `{}`.
 */
export function applyFilterPath(value: unknown, filterPath: string): unknown {
  const filters = filterPath
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f.length > 0);
  const includes = filters.filter((f) => !f.startsWith('-')).map((f) => f.split('.'));
  const excludes = filters.filter((f) => f.startsWith('-')).map((f) => f.slice(1).split('.'));
  let result = value;
  if (includes.length > 0) result = include(result, includes) ?? {};
  if (excludes.length > 0) result = exclude(result, excludes) ?? {};
  return result;
}

function segmentMatches(pattern: string, key: string): boolean {
  if (pattern === '*' || pattern === '**') return true;
  return simpleMatch(pattern, key);
}

/** The remaining paths after entering `key`; an empty path means "keep this whole subtree". */
function advance(paths: string[][], key: string): string[][] {
  const next: string[][] = [];
  for (const path of paths) {
    const [head, ...rest] = path;
    if (head === undefined) continue;
    if (head === '**') {
      next.push(path); // ** may swallow this key
      if (rest.length === 0 || segmentMatches(rest[0] ?? '', key)) next.push(rest.slice(1));
      if (rest.length === 0) next.push([]);
    } else if (segmentMatches(head, key)) next.push(rest);
  }
  return next;
}

function include(value: unknown, paths: string[][]): unknown {
  if (paths.some((p) => p.length === 0)) return value;
  if (Array.isArray(value)) {
    const kept = value.map((item) => include(item, paths)).filter((item) => item !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const out = newDictionary<unknown>(); // response keys come from documents and mappings
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const next = advance(paths, key);
    if (next.length === 0) continue;
    const kept = include(child, next);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function exclude(value: unknown, paths: string[][]): unknown {
  if (paths.some((p) => p.length === 0)) return undefined;
  if (Array.isArray(value)) return value.map((item) => exclude(item, paths)).filter((i) => i !== undefined);
  if (value === null || typeof value !== 'object') return value;
  const out = newDictionary<unknown>(); // response keys come from documents and mappings
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const next = advance(paths, key);
    if (next.length === 0) out[key] = child;
    else {
      const kept = exclude(child, next);
      if (kept !== undefined) out[key] = kept;
    }
  }
  return out;
}
