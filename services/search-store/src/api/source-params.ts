/**
 * `_source` filtering (ES "_source field" / get API `_source_includes` / `_source_excludes`): patterns
 * are dotted paths with `*` wildcards; an include of an object keeps all of it; excludes win.
 */
export function filterSource(
  source: Record<string, unknown>,
  includes: string[],
  excludes: string[],
): Record<string, unknown> {
  const inc = includes.map(toRegex);
  const exc = excludes.map(toRegex);
  return filterObject(source, '', inc, exc) ?? {};
}

function toRegex(pattern: string): RegExp {
  const escaped = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

function filterObject(
  value: Record<string, unknown>,
  prefix: string,
  inc: RegExp[],
  exc: RegExp[],
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const path = `${prefix}${key}`;
    if (exc.some((r) => r.test(path))) continue;
    const included = inc.length === 0 || inc.some((r) => r.test(path));
    if (typeof child === 'object' && child !== null && !Array.isArray(child)) {
      // Descend when the object itself is included or a pattern may match below it.
      const mayMatchBelow = inc.length === 0 || included || inc.some((r) => couldMatchBelow(r, path));
      if (!mayMatchBelow) continue;
      const kept = filterObject(child as Record<string, unknown>, `${path}.`, included ? [] : inc, exc);
      if (kept && (Object.keys(kept).length > 0 || included)) out[key] = kept;
      continue;
    }
    if (Array.isArray(child)) {
      if (!included && !inc.some((r) => couldMatchBelow(r, path))) continue;
      const items = child
        .map((item) =>
          typeof item === 'object' && item !== null && !Array.isArray(item)
            ? filterObject(item as Record<string, unknown>, `${path}.`, included ? [] : inc, exc)
            : included
              ? item
              : undefined,
        )
        .filter(
          (item) =>
            item !== undefined &&
            !(typeof item === 'object' && item !== null && Object.keys(item).length === 0 && !included),
        );
      if (included || items.length > 0) out[key] = items;
      continue;
    }
    if (included) out[key] = child;
  }
  return out;
}

/** A regex over full paths could match something under `path.` when its source starts compatibly. */
function couldMatchBelow(regex: RegExp, path: string): boolean {
  const source = regex.source.slice(1, -1);
  const literalPrefix = source.split('.*')[0]?.replace(/\\/g, '') ?? '';
  const wanted = `${path}.`;
  return literalPrefix.startsWith(wanted) || (wanted.startsWith(literalPrefix) && source.includes('.*'));
}

/** Reads `_source`, `_source_includes`, `_source_excludes` query parameters. */
export function sourceParams(query: Record<string, unknown>): {
  fetch: boolean;
  includes: string[];
  excludes: string[];
} {
  const list = (v: unknown) =>
    typeof v === 'string' && v !== '' ? v.split(',').map((s) => s.trim()) : ([] as string[]);
  const raw = query._source;
  let fetch = true;
  let includes = list(query._source_includes ?? query._source_include);
  if (raw === 'false') fetch = false;
  else if (typeof raw === 'string' && raw !== '' && raw !== 'true') includes = [...includes, ...list(raw)];
  return { fetch, includes, excludes: list(query._source_excludes ?? query._source_exclude) };
}
