import type { AggNode, MetricType } from './agg-types';
import { formatDate } from './format-date';
import type { FieldValues } from './field-values';
import type { AggRun } from './agg-run';
import type { DocSet, SqlBuilder } from './sql-builder';

type MetricNode = Extract<AggNode, { type: MetricType }>;

interface MetricRow extends Record<string, unknown> {
  g: string;
  c: string;
  dc: string;
  s: number | null;
  mn: number | string | null;
  mx: number | string | null;
}

/**
 * The values of `field` per group, with `missing` standing in for documents that have none
 * (Elasticsearch ValuesSourceConfig "missing").
 */
export function groupValuesSql(b: SqlBuilder, docs: DocSet, values: FieldValues, missing: unknown): string {
  const noMissing = missing === undefined || missing === null;
  // Doc values hold rows of live documents only, so under match_all the values are the answer: skipping
  // the join to the matched documents saves a lookup per document (most of a match_all aggregation's time).
  if (docs.allDocs && noMissing) return `SELECT ''::text AS g, v.doc_key, v.v FROM (${values.sql(b)}) v`;
  const joined = `SELECT d.g, d.doc_key, v.v FROM (${docs(b)}) d JOIN (${values.sql(b)}) v ON v.doc_key = d.doc_key`;
  if (noMissing) return joined;
  const cast = values.column === 'kw' ? 'text' : 'float8';
  const value =
    values.column === 'kw'
      ? String(missing)
      : typeof missing === 'boolean'
        ? Number(missing)
        : Number(missing);
  return `${joined} UNION ALL SELECT d.g, d.doc_key, ${b.param(value, cast)} FROM (${docs(b)}) d
    WHERE NOT EXISTS (SELECT 1 FROM (${values.sql(b)}) v WHERE v.doc_key = d.doc_key)`;
}

/** avg, sum, min, max, stats, value_count, cardinality: SQL aggregates per group (API-NOTES §A3.4). */
export async function computeMetric(
  run: AggRun,
  node: MetricNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const allowKeyword = node.type === 'value_count' || node.type === 'cardinality';
  const values = await run.fields.resolve(node.spec.field, node.type, allowKeyword);
  const rows = await run.query<MetricRow>(
    (b) => `SELECT x.g, count(x.v) AS c, ${node.type === 'cardinality' ? 'count(DISTINCT x.v)' : '0'} AS dc,
        ${values.column === 'num' ? 'sum(x.v) AS s, min(x.v) AS mn, max(x.v) AS mx' : 'NULL::float8 AS s, NULL AS mn, NULL AS mx'}
      FROM (${groupValuesSql(b, docs, values, node.spec.missing)}) x GROUP BY x.g`,
  );
  const byGroup = new Map(rows.map((r) => [r.g, r]));
  return new Map(
    groups.map((g) => {
      const r = byGroup.get(g);
      const count = Number(r?.c ?? 0);
      return [
        g,
        renderMetric(node.type, values.type, {
          count,
          sum: r?.s === null || r?.s === undefined ? 0 : Number(r.s),
          min: count > 0 ? Number(r?.mn) : null,
          max: count > 0 ? Number(r?.mx) : null,
          distinct: Number(r?.dc ?? 0),
        }),
      ];
    }),
  );
}

/** What a metric aggregation accumulated over a group's values. */
export interface MetricTotals {
  count: number;
  sum: number;
  min: number | null;
  max: number | null;
  /** Distinct values (cardinality). */
  distinct: number;
}

/** A metric's result as Elasticsearch renders it (value, value_as_string for dates; stats' fields). */
export function renderMetric(type: MetricType, valuesType: string | null, t: MetricTotals): unknown {
  const isDate = valuesType === 'date';
  const asString = (v: number | null): Record<string, string> =>
    isDate && v !== null ? { value_as_string: formatDate(v) } : {};
  const { count, sum, min, max } = t;
  const avg = count > 0 ? sum / count : null;
  switch (type) {
    case 'avg':
      return { value: avg, ...asString(avg) };
    case 'sum':
      return { value: sum, ...asString(sum) };
    case 'min':
      return { value: min, ...asString(min) };
    case 'max':
      return { value: max, ...asString(max) };
    case 'value_count':
      return { value: count };
    case 'cardinality':
      return { value: t.distinct };
    case 'stats': {
      const stats: Record<string, unknown> = { count, min, max, avg, sum };
      if (isDate && count > 0) {
        Object.assign(stats, {
          min_as_string: formatDate(min as number),
          max_as_string: formatDate(max as number),
          avg_as_string: formatDate(avg as number),
          sum_as_string: formatDate(sum),
        });
      }
      return stats;
    }
  }
}
