import type { AggRun } from './agg-run';
import type { AggNode, PercentilesSpec } from './agg-types';
import { formatDate } from './format-date';
import { groupValuesSql } from './metric-agg';
import { javaDouble } from './parse-percentiles';
import type { DocSet } from './sql-builder';

type PercentilesNode = Extract<AggNode, { type: 'percentiles' }>;

/**
 * percentiles (ES "Percentiles aggregation"). Elasticsearch's t-digest answers a quantile q of n
 * values by interpolating between the sorted values (centroids of weight one) at rank q·n − ½,
 * clamped to the smallest and largest; that is exact while every value is its own centroid and an
 * approximation beyond. Here the rank is always taken over the exact sorted values in SQL
 * (percentile_cont at (q·n − ½)/(n − 1)): the same numbers on small sets, exact ones on large sets.
 */
export async function computePercentiles(
  run: AggRun,
  node: PercentilesNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const values = await run.fields.resolve(spec.field, 'percentiles', false);
  const qs = spec.percents.map((p) => p / 100);
  const rows = await run.query<{ g: string; q: number[] | null }>((b) => {
    const fractions = b.param(qs, 'float8[]');
    return `SELECT y.g, percentile_cont(
                (SELECT array_agg(CASE WHEN y.n = 1 THEN 0 ELSE least(1, greatest(0, (f * y.n - 0.5) / (y.n - 1))) END ORDER BY i)
                   FROM unnest(${fractions}) WITH ORDINALITY AS u(f, i))
              ) WITHIN GROUP (ORDER BY y.v) AS q
              FROM (SELECT x.g, x.v, count(*) OVER (PARTITION BY x.g) AS n
                      FROM (${groupValuesSql(b, docs, values, spec.missing)}) x) y
             GROUP BY y.g, y.n`;
  });
  const byGroup = new Map(rows.map((r) => [r.g, r.q]));
  const isDate = values.type === 'date';
  return new Map<string, unknown>(
    groups.map((g): [string, unknown] => {
      const found = byGroup.get(g);
      return [g, renderPercentiles(spec, isDate, found ? found.map(Number) : undefined)];
    }),
  );
}

/** A group's percentiles as Elasticsearch lists them (`found`: the quantiles; undefined: no values). */
export function renderPercentiles(
  spec: PercentilesSpec,
  isDate: boolean,
  found: number[] | undefined,
): unknown {
  const entries = spec.percents.map((p, i) => {
    const v = found ? Number(found[i]) : null;
    return { key: p, value: v, asString: isDate && v !== null ? formatDate(v) : undefined };
  });
  if (!spec.keyed)
    return {
      values: entries.map((e) => ({
        key: e.key,
        value: e.value,
        ...(e.asString === undefined ? {} : { value_as_string: e.asString }),
      })),
    };
  // Keys are our own rendering of numbers, but keep a null prototype like every keyed result.
  const keyed = Object.create(null) as Record<string, unknown>;
  for (const e of entries) {
    keyed[javaDouble(e.key)] = e.value;
    if (e.asString !== undefined) keyed[`${javaDouble(e.key)}_as_string`] = e.asString;
  }
  return { values: keyed };
}
