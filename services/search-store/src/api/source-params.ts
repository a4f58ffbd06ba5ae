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

/** Whether a `_source`, `_source_includes` or `_source_excludes` parameter was given. */
export function sourceAsked(query: Record<string, unknown>): boolean {
  return ['_source', '_source_includes', '_source_include', '_source_excludes', '_source_exclude'].some(
    (name) => query[name] !== undefined,
  );
}

/** `stored_fields=a,b*`: the names and patterns (ES StoredFieldsContext; `_none_` keeps none). */
export function storedFieldNames(value: string): string[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.includes('_none_') ? [] : names;
}
