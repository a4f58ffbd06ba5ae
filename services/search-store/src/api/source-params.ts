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
