import type { AggNode } from './agg-types';
import type { AggRun } from './agg-run';
import type { DocSet, SqlBuilder } from './sql-builder';
import { simpleMatch } from '../text/simple-match';

type TopHitsNode = Extract<AggNode, { type: 'top_hits' }>;

interface HitRow extends Record<string, unknown> {
  g: string;
  index: string;
  id: string;
  source: Record<string, unknown>;
  score: number | null;
  total: string;
  s0: number | string | null;
  s1: number | string | null;
  s2: number | string | null;
}

/**
 * top_hits: the first `size` documents of each bucket, by the given sort (fields, _score, _doc) or
 * by score (when the matched set is scored) else index order. Fields sort through doc values
 * (min value ascending, max descending, missing last), as Elasticsearch's sort mode defaults.
 */
export async function computeTopHits(
  run: AggRun,
  node: TopHitsNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const scored = run.matched.scored === true;
  const sort = spec.sort.length > 0 ? spec.sort : scored ? [{ field: '_score', asc: false }] : [];
  const fieldSorts = sort.slice(0, 3);
  const sortValues = await Promise.all(
    fieldSorts.map(async (s) =>
      s.field === '_score' || s.field === '_doc' ? null : await run.fields.resolve(s.field, 'sort', true),
    ),
  );
  const rows = await run.query<HitRow>((b: SqlBuilder) => {
    const scoreSql = scored
      ? `(SELECT max(ms.score) FROM (${b.fragment(run.matched.sql, run.matched.params)}) ms WHERE ms.doc_key = d.doc_key)`
      : 'NULL::float8';
    const exprs = fieldSorts.map((s, i) => {
      const values = sortValues[i];
      if (s.field === '_score') return scoreSql;
      if (s.field === '_doc' || !values) return 'd.doc_key';
      return `(SELECT ${s.asc ? 'min' : 'max'}(v.v) FROM (${values.sql(b)}) v WHERE v.doc_key = d.doc_key)`;
    });
    const orderBy = [
      ...fieldSorts.map((s, i) => `s${i} ${s.asc ? 'ASC' : 'DESC'} NULLS LAST`),
      'doc_key ASC',
    ].join(', ');
    const cols = [0, 1, 2].map((i) => `${exprs[i] ?? 'NULL'} AS s${i}`).join(', ');
    return `SELECT r.g, i.name AS index, doc.id, doc.source, r.score, r.total, r.s0, r.s1, r.s2 FROM (
              SELECT z.*, row_number() OVER (PARTITION BY z.g ORDER BY ${orderBy}) AS rn, count(*) OVER (PARTITION BY z.g) AS total
                FROM (SELECT d.g, d.doc_key, ${scoreSql} AS score, ${cols} FROM (${docs(b)}) d) z) r
              JOIN documents doc ON doc.doc_key = r.doc_key
              JOIN indices i ON i.index_id = doc.index_id
             WHERE r.rn > ${b.param(spec.from, 'bigint')} AND r.rn <= ${b.param(spec.from + spec.size, 'bigint')}
             ORDER BY r.g, r.rn`;
  });
  const byGroup = new Map<string, HitRow[]>(groups.map((g) => [g, []]));
  const totals = new Map<string, number>();
  for (const r of rows) {
    byGroup.get(r.g)?.push(r);
    totals.set(r.g, Number(r.total));
  }
  const explicitSort = spec.sort.length > 0;
  const out = new Map<string, unknown>();
  for (const [g, hits] of byGroup) {
    const total = totals.get(g) ?? (await countGroup(run, docs, g));
    const scores = hits.map((h) => (h.score === null ? null : Number(h.score)));
    const maxScore =
      explicitSort || !scored
        ? null
        : scores.reduce<number | null>((m, s) => (s !== null && (m === null || s > m) ? s : m), null);
    out.set(g, {
      hits: {
        total: { value: total, relation: 'eq' },
        max_score: maxScore,
        hits: hits.map((h, i) => {
          const hit: Record<string, unknown> = {
            _index: h.index,
            _id: h.id,
            _score: explicitSort ? null : (scores[i] ?? null),
          };
          if (spec.source !== false) hit._source = filterSource(h.source, spec.source);
          if (explicitSort)
            hit.sort = fieldSorts.map((s, k) =>
              sortValue(h[`s${k}`] as number | string | null, s.asc, sortValues[k]?.type ?? null, s.field),
            );
          return hit;
        }),
      },
    });
  }
  return out;
}

async function countGroup(run: AggRun, docs: DocSet, g: string): Promise<number> {
  const rows = await run.query<{ c: string }>(
    (b) => `SELECT count(*) AS c FROM (${docs(b)}) d WHERE d.g = ${b.param(g)}`,
  );
  return Number(rows[0]?.c ?? 0);
}

/** Sort values as Elasticsearch returns them: numbers, epoch millis for dates, strings; missing → ±Long.MAX / null. */
function sortValue(v: number | string | null, asc: boolean, type: string | null, field: string): unknown {
  // Long.MAX_VALUE / Long.MIN_VALUE, as close as a double gets (JSON.stringify prints 9223372036854776000).
  if (v === null) return type === 'keyword' ? null : asc ? 2 ** 63 : -(2 ** 63);
  if (field === '_score' || field === '_doc') return Number(v);
  return typeof v === 'string' ? v : Number(v);
}

function matches(path: string, pattern: string): boolean {
  if (pattern === path || path.startsWith(`${pattern}.`)) return true;
  if (!pattern.includes('*')) return false;
  return simpleMatch(pattern, path);
}

/** `_source` filtering for hits: includes/excludes of field paths with `*` wildcards. */
export function filterSource(
  source: Record<string, unknown>,
  filter: true | { includes: string[]; excludes: string[] },
  prefix = '',
): Record<string, unknown> {
  if (filter === true) return source;
  // Keyed by the document's own field names, `__proto__` included: no prototype to assign to.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (filter.excludes.some((p) => matches(path, p))) continue;
    const included = filter.includes.length === 0 || filter.includes.some((p) => matches(path, p));
    if (included) out[key] = value;
    else if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      filter.includes.some((p) => p.startsWith(`${path}.`) || p.includes('*'))
    ) {
      const nested = filterSource(value as Record<string, unknown>, filter, path);
      if (Object.keys(nested).length > 0) out[key] = nested;
    }
  }
  return out;
}
