import type { AggNode } from './agg-types';
import { checkTimeZone, formatDate, parseDateBound } from './format-date';
import { groupValuesSql } from './metric-agg';
import type { AggRun } from './agg-run';
import { renderBucket, type Bucket } from './render-bucket';
import { javaDouble } from '../script/script-values';
import { GROUP_SEP, type DocSet } from './sql-builder';

type RangeNode = Extract<AggNode, { type: 'range' | 'date_range' }>;

/**
 * range / date_range: each document falls in every range with from ≤ v < to. Ranges are listed sorted
 * by (from, to) as Elasticsearch's RangeAggregator sorts them; keys are "from-to" with "*" for open ends.
 */
export async function computeRange(
  run: AggRun,
  node: RangeNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const values = await run.fields.resolve(spec.field, node.type, false);
  checkTimeZone(spec.timeZone);
  const ranges = sortedRanges(node, run.ctx.now ?? Date.now());
  const membership: DocSet = (b) =>
    `SELECT DISTINCT x.doc_key, x.g || ${b.param(GROUP_SEP)} || r.i::text AS g
       FROM (${groupValuesSql(b, docs, values, spec.missing)}) x
       JOIN unnest(${b.param(
         ranges.map((_r, i) => i),
         'int[]',
       )}, ${b.param(
         ranges.map((r) => r.from),
         'float8[]',
       )}, ${b.param(
         ranges.map((r) => r.to),
         'float8[]',
       )}) AS r(i, lo, hi) ON (r.lo IS NULL OR x.v >= r.lo) AND (r.hi IS NULL OR x.v < r.hi)`;
  const rows = await run.query<{ g: string; c: string }>(
    (b) => `SELECT m.g, count(*) AS c FROM (${membership(b)}) m GROUP BY m.g`,
  );
  const counts = new Map(rows.map((r) => [r.g, Number(r.c)]));
  const byGroup = new Map<string, Bucket[]>();
  for (const g of groups) {
    byGroup.set(
      g,
      ranges.map((r, i) => {
        const bg = `${g}${GROUP_SEP}${i}`;
        return { bg, docCount: counts.get(bg) ?? 0, head: rangeHead(node, r), subs: {} };
      }),
    );
  }
  const all = [...byGroup.values()].flat();
  run.countBuckets(all.length);
  await run.attachSubs(node.subs, membership, all);
  return new Map<string, unknown>(
    [...byGroup].map(([g, buckets]): [string, unknown] => [g, renderRanges(spec.keyed, buckets)]),
  );
}

/** One range with its bounds as numbers (null: open). */
export interface SortedRange {
  key?: string;
  from: number | null;
  to: number | null;
}

/** The node's ranges sorted by (from, to) as Elasticsearch's RangeAggregator sorts them. */
export function sortedRanges(node: RangeNode, now: number): SortedRange[] {
  const isDate = node.type === 'date_range';
  const bound = (v: number | string | undefined): number | null =>
    v === undefined ? null : isDate ? parseDateBound(v, now) : Number(v);
  return node.spec.ranges
    .map((r) => ({ key: r.key, from: bound(r.from), to: bound(r.to) }))
    .sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity) || (a.to ?? Infinity) - (b.to ?? Infinity));
}

/** A range bucket's wire fields before doc_count: key ("from-to", "*" for open ends), from, to. */
export function rangeHead(node: RangeNode, r: SortedRange): Record<string, unknown> {
  const { spec } = node;
  const isDate = node.type === 'date_range';
  const tz = checkTimeZone(spec.timeZone);
  const show = (v: number): string => (isDate ? formatDate(v, spec.format, tz) : javaDouble(v));
  const head: Record<string, unknown> = {
    key: r.key ?? `${r.from === null ? '*' : show(r.from)}-${r.to === null ? '*' : show(r.to)}`,
  };
  if (r.from !== null) Object.assign(head, { from: r.from }, isDate ? { from_as_string: show(r.from) } : {});
  if (r.to !== null) Object.assign(head, { to: r.to }, isDate ? { to_as_string: show(r.to) } : {});
  return head;
}

/** A group's range buckets, listed or keyed by their keys. */
export function renderRanges(keyed: boolean, buckets: Bucket[]): unknown {
  if (!keyed) return { buckets: buckets.map(renderBucket) };
  return {
    buckets: Object.fromEntries(
      buckets.map((bucket) => {
        const { key, ...rest } = renderBucket(bucket);
        return [String(key), rest];
      }),
    ),
  };
}
