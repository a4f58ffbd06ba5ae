/**
 * A minimal query → SQL translator for aggregation tests (match_all, term, range over doc_values),
 * standing in for the query engine's translateQuery. Returns SQL selecting doc_key.
 */
export function makeTestTranslator(
  indexId: string,
  fieldIds: Record<string, { id: number; type: string }>,
): (query: unknown) => { sql: string; params: unknown[] } {
  return (query) => {
    const q = query as Record<string, Record<string, unknown>>;
    if (q.match_all) return { sql: 'SELECT doc_key FROM documents WHERE index_id = $1', params: [indexId] };
    const [kind, body] = Object.entries(q)[0] ?? [];
    const [field, value] = Object.entries(body ?? {})[0] ?? [];
    const f = field ? fieldIds[field] : undefined;
    if (!f) return { sql: 'SELECT NULL::bigint AS doc_key WHERE false', params: [] };
    const column = f.type === 'keyword' ? 'kw' : 'num';
    if (kind === 'term') {
      const v = typeof value === 'object' && value !== null ? (value as { value: unknown }).value : value;
      const param = column === 'num' && typeof v === 'boolean' ? Number(v) : v;
      return {
        sql: `SELECT DISTINCT doc_key FROM doc_values WHERE index_id = $1 AND field_id = $2 AND ${column} = $3`,
        params: [indexId, f.id, param],
      };
    }
    if (kind === 'range') {
      const r = value as { gte?: number; lt?: number };
      return {
        sql: 'SELECT DISTINCT doc_key FROM doc_values WHERE index_id = $1 AND field_id = $2 AND num >= $3 AND num < $4',
        params: [indexId, f.id, r.gte ?? -Number.MAX_VALUE, r.lt ?? Number.MAX_VALUE],
      };
    }
    throw new Error(`test translator does not support ${String(kind)}`);
  };
}
