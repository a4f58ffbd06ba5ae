import { EsError } from '@acme/common';
import type { AggNode } from './agg-types';
import { checkTimeZone, formatDate, parseDateBound } from './format-date';
import { groupValuesSql } from './metric-agg';
import type { AggRun } from './agg-run';
import { renderBucket, type Bucket } from './render-bucket';
import { GROUP_SEP, type DocSet, type SqlBuilder } from './sql-builder';

type HistogramNode = Extract<AggNode, { type: 'histogram' | 'date_histogram' }>;

/** PostgreSQL's AT TIME ZONE reads "+01:00" as POSIX (inverted); an interval keeps ISO's sign. */
export function zoneSql(b: SqlBuilder, tz: string): string {
  if (/^[+-]\d{2}:?\d{2}$/.test(tz))
    return `(${b.param(tz.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2'))})::interval`;
  return b.param(tz === 'Z' ? 'UTC' : tz, 'text');
}

/** The bucket key of value `v` (SQL): floor((v - offset) / interval) * interval + offset, or date_trunc in the zone. */
export function keySql(b: SqlBuilder, node: HistogramNode, tz: string): string {
  const { spec } = node;
  if (spec.calendar) {
    const zone = zoneSql(b, tz);
    return `(extract(epoch FROM date_trunc('${spec.calendar}', to_timestamp(x.v / 1000.0) AT TIME ZONE ${zone}) AT TIME ZONE ${zone}) * 1000 + ${b.param(spec.offset, 'float8')})`;
  }
  const interval = b.param(spec.interval, 'float8');
  const offset = b.param(spec.offset, 'float8');
  return `(floor((x.v - ${offset}) / ${interval}) * ${interval} + ${offset})`;
}

/**
 * histogram / date_histogram: GROUP BY the rounded key; with min_doc_count 0 (the default) the empty
 * buckets between the first and last key (widened by extended_bounds) are filled in, as Elasticsearch does.
 */
export async function computeHistogram(
  run: AggRun,
  node: HistogramNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const isDate = node.type === 'date_histogram';
  const values = await run.fields.resolve(spec.field, node.type, false);
  const tz = checkTimeZone(spec.timeZone);
  const now = run.ctx.now ?? Date.now();
  const hard = spec.hardBounds;
  const keyed = (b: SqlBuilder): string => {
    const key = keySql(b, node, tz);
    const conds: string[] = [];
    if (hard?.min !== undefined)
      conds.push(`${key} >= ${b.param(isDate ? parseDateBound(hard.min, now) : Number(hard.min), 'float8')}`);
    if (hard?.max !== undefined)
      conds.push(`${key} <= ${b.param(isDate ? parseDateBound(hard.max, now) : Number(hard.max), 'float8')}`);
    // One row per (group, document, key): a document counts once per bucket.
    return `SELECT x.g AS pg, x.doc_key, ${key} AS k FROM (${groupValuesSql(b, docs, values, spec.missing)}) x
             ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''} GROUP BY x.g, x.doc_key, k`;
  };
  const membership: DocSet = (b) =>
    `SELECT y.doc_key, y.pg || ${b.param(GROUP_SEP)} || y.k::text AS g FROM (${keyed(b)}) y`;
  const rows = await run.query<{ pg: string; k: number; g: string; c: string }>(
    (b) =>
      `SELECT y.pg, y.k, y.pg || ${b.param(GROUP_SEP)} || y.k::text AS g, count(*) AS c FROM (${keyed(b)}) y GROUP BY y.pg, y.k ORDER BY y.pg, y.k`,
  );
  const found = new Map<string, Map<number, { bg: string; c: number }>>(groups.map((g) => [g, new Map()]));
  for (const r of rows) found.get(r.pg)?.set(Number(r.k), { bg: r.g, c: Number(r.c) });
  const keysByGroup = new Map<string, number[]>();
  for (const g of groups) {
    const keys = [...(found.get(g) as Map<number, unknown>).keys()].sort((a, b) => a - b);
    keysByGroup.set(g, spec.minDocCount === 0 ? await fillKeys(run, node, keys, tz, now) : keys);
  }
  const byGroup = new Map<string, Bucket[]>();
  for (const g of groups) {
    const hits = found.get(g) as Map<number, { bg: string; c: number }>;
    const buckets: Bucket[] = [];
    for (const k of keysByGroup.get(g) as number[]) {
      const hit = hits.get(k);
      const count = hit?.c ?? 0;
      if (count < spec.minDocCount) continue;
      const head = isDate ? { key_as_string: formatDate(k, spec.format, tz), key: k } : { key: k };
      buckets.push({ bg: hit?.bg ?? `${g}${GROUP_SEP}empty:${k}`, docCount: count, head, subs: {} });
    }
    run.countBuckets(buckets.length);
    byGroup.set(g, buckets);
  }
  await run.attachSubs(node.subs, membership, [...byGroup.values()].flat());
  const out = new Map<string, unknown>();
  for (const [g, buckets] of byGroup) {
    const ordered = orderBuckets(buckets, node);
    if (!spec.keyed) out.set(g, { buckets: ordered.map(renderBucket) });
    else
      out.set(g, {
        buckets: Object.fromEntries(
          ordered.map((bucket) => [
            String(bucket.head.key_as_string ?? bucket.head.key),
            renderBucket(bucket),
          ]),
        ),
      });
  }
  return out;
}

/** The buckets in the request's order (they come in key order). */
export function orderBuckets(buckets: Bucket[], node: HistogramNode): Bucket[] {
  const [first] = node.spec.order;
  if (!first || (first.key === '_key' && first.asc)) return buckets;
  return [...buckets].sort((a, b) => {
    const d = first.key === '_count' ? a.docCount - b.docCount : Number(a.head.key) - Number(b.head.key);
    return (first.asc ? d : -d) || Number(a.head.key) - Number(b.head.key);
  });
}

/** Every key from the first to the last (extended_bounds widen the range); calendar steps come from SQL. */
export async function fillKeys(
  run: AggRun,
  node: HistogramNode,
  keys: number[],
  tz: string,
  now: number,
): Promise<number[]> {
  const { spec } = node;
  const isDate = node.type === 'date_histogram';
  const round = (v: number | string): number => {
    const n = isDate ? parseDateBound(v, now) : Number(v);
    if (spec.calendar) return n; // rounded by SQL below
    const interval = spec.interval as number;
    return Math.floor((n - spec.offset) / interval) * interval + spec.offset;
  };
  let lo = keys[0];
  let hi = keys[keys.length - 1];
  const ext = spec.extendedBounds;
  if (ext?.min !== undefined) lo = lo === undefined ? round(ext.min) : Math.min(lo, round(ext.min));
  if (ext?.max !== undefined) hi = hi === undefined ? round(ext.max) : Math.max(hi, round(ext.max));
  if (lo === undefined || hi === undefined) return keys;
  if (spec.calendar) {
    // Postgres's interval input knows no "quarter" (date_trunc does): a quarter steps three months.
    const rows = await run.query<{ k: number }>((b) => {
      const zone = zoneSql(b, tz);
      const unit = spec.calendar as string;
      return `SELECT extract(epoch FROM gs AT TIME ZONE ${zone}) * 1000 AS k
                FROM generate_series(date_trunc('${unit}', to_timestamp(${b.param(lo, 'float8')} / 1000.0) AT TIME ZONE ${zone}),
                                     to_timestamp(${b.param(hi, 'float8')} / 1000.0) AT TIME ZONE ${zone},
                                     ${b.param(unit === 'quarter' ? '3 months' : `1 ${unit}`, 'interval')}) AS gs
               LIMIT ${b.param(run.maxBuckets + 1, 'int')}`;
    });
    const filled = rows.map((r) => Number(r.k) + spec.offset);
    return [...new Set([...filled, ...keys])].sort((a, b) => a - b);
  }
  const interval = spec.interval as number;
  const first = Math.round((lo - spec.offset) / interval);
  const count = Math.round((hi - lo) / interval) + 1;
  if (count > run.maxBuckets) run.countBuckets(count);
  if (count < 0) throw new EsError('illegal_argument_exception', 'invalid histogram bounds');
  // Reuse the keys SQL computed so that float rounding never makes two buckets of one.
  const found = new Map(keys.map((k) => [Math.round((k - spec.offset) / interval), k]));
  const filled = Array.from(
    { length: count },
    (_v, i) => found.get(first + i) ?? (first + i) * interval + spec.offset,
  );
  return [...new Set([...filled, ...keys])].sort((a, b) => a - b);
}
