import { EsError } from '@acme/common';
import { isIntegerType } from '../mapping/field-types';
import type { AggNode, TermsOrder } from './agg-types';
import { formatDate } from './format-date';
import { formatIpKey, ipKey } from '../mapping/ip-value';
import {
  unsignedLongFromKey,
  unsignedLongJson,
  unsignedLongKey,
  unsignedLongOf,
} from '../mapping/unsigned-long';
import type { FieldValues } from './field-values';
import { groupValuesSql } from './metric-agg';
import type { AggRun } from './agg-run';
import { renderBucket, type Bucket } from './render-bucket';
import { GROUP_SEP, type DocSet, type SqlBuilder } from './sql-builder';

type TermsNode = Extract<AggNode, { type: 'terms' }>;

interface TermRow extends Record<string, unknown> {
  g: string;
  k: number | string;
  kt: string;
  c: string;
  total: string;
}

/** The wire key of a term: numbers stay numbers; booleans are 1/0 with key_as_string; dates add key_as_string. */
export function termHead(values: FieldValues, k: number | string): Record<string, unknown> {
  // An ip bucket's key is the address as ES prints it (DocValueFormat.IP), ordered by its bytes.
  if (values.type === 'ip') return { key: formatIpKey(String(k)) };
  // An unsigned long bucket's key is the exact integer (a long or a BigInteger in ES).
  if (values.type === 'unsigned_long') return { key: unsignedLongJson(unsignedLongFromKey(String(k))) };
  if (values.column === 'kw') return { key: k };
  const n = Number(k);
  if (values.type === 'boolean') return { key: n, key_as_string: n === 1 ? 'true' : 'false' };
  if (values.type === 'date') return { key: n, key_as_string: formatDate(n) };
  return { key: isIntegerType(values.type) ? Math.trunc(n) : n };
}

/** Keyword keys sort in byte order (COLLATE "C"), as Lucene's BytesRef order does. */
/**
 * One row per (group, document, value): a document counts once per bucket even when a value repeats
 * in it (Lucene's doc values dedupe). GROUP BY lets PostgreSQL hash instead of sorting for DISTINCT.
 */
export function distinctValuesSql(
  b: SqlBuilder,
  docs: DocSet,
  values: FieldValues,
  missing: unknown,
): string {
  if (values.unique) return groupValuesSql(b, docs, values, missing);
  return `SELECT x.g, x.doc_key, x.v FROM (${groupValuesSql(b, docs, values, missing)}) x GROUP BY x.g, x.doc_key, x.v`;
}

function orderSql(order: TermsOrder, column: 'num' | 'kw'): string {
  const key = column === 'kw' ? 'k COLLATE "C"' : 'k';
  const parts = order.map((o) => `${o.key === '_count' ? 'c' : key} ${o.asc ? 'ASC' : 'DESC'}`);
  return [...parts, `${key} ASC`].join(', ');
}

function usesSubOrder(order: TermsOrder): boolean {
  return order.some((o) => o.key !== '_count' && o.key !== '_key');
}

/**
 * terms: GROUP BY value per parent group, top `size` by the order (count desc, key asc by default),
 * with sum_other_doc_count from a window sum. Ordering by a sub-aggregation computes it for every
 * candidate bucket (bounded by search.max_buckets) and sorts in Node.
 */
export async function computeTerms(
  run: AggRun,
  node: TermsNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const values = await run.fields.resolve(spec.field, 'terms', true);
  const subOrder = usesSubOrder(spec.order);
  for (const o of spec.order) {
    if (
      o.key !== '_count' &&
      o.key !== '_key' &&
      !node.subs.some((s) => s.type !== 'pipeline' && s.name === o.key.split(/[.[]/)[0])
    ) {
      throw new EsError(
        'illegal_argument_exception',
        `Invalid aggregator order path [${o.key}]. The provided aggregation [${o.key}] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.`,
      );
    }
  }
  const limit = subOrder ? run.maxBuckets + 1 : spec.size;
  const missing = keyMissing(values.type, spec.missing);
  const keyText = values.column === 'kw' ? 'x.v' : 'x.v::text';
  // Sub-aggregations only need the shown buckets: restricting the values to their keys first lets
  // the planner estimate the rows from column statistics (a filter on the group id expression cannot).
  const shownKeys: Array<number | string> = [];
  const shownValues: FieldValues =
    spec.missing === undefined
      ? {
          ...values,
          sql: (b) =>
            `SELECT fv.doc_key, fv.v FROM (${values.sql(b)}) fv WHERE fv.v = ANY(${b.param(shownKeys, values.column === 'kw' ? 'text[]' : 'float8[]')})`,
        }
      : values;
  const membership: DocSet = (b) =>
    `SELECT x.doc_key, x.g || ${b.param(GROUP_SEP)} || ${keyText} AS g FROM (${distinctValuesSql(b, docs, shownValues, missing)}) x`;
  // Like Elasticsearch, sum_other_doc_count also counts the buckets below min_doc_count.
  const rows = await run.query<TermRow>((b) => {
    const minDocCount = b.param(Math.max(spec.minDocCount, 1), 'bigint');
    return `SELECT y.g, y.k, y.kt, y.c, y.total FROM (
        SELECT t.*, t.c >= ${minDocCount} AS kept,
               row_number() OVER (PARTITION BY t.g, t.c >= ${minDocCount} ORDER BY ${orderSql(subOrder ? [{ key: '_count', asc: false }] : spec.order, values.column)}) AS rn,
               sum(t.c) OVER (PARTITION BY t.g) AS total
          FROM (SELECT u.g, u.v AS k, ${keyText.replace('x.', 'u.')} AS kt, count(*) AS c
                  FROM (${distinctValuesSql(b, docs, values, missing)}) u GROUP BY u.g, u.v) t) y
       WHERE y.kept AND y.rn <= ${b.param(limit, 'bigint')} ORDER BY y.g, y.rn`;
  });
  const byGroup = new Map<string, { total: number; buckets: Bucket[] }>(
    groups.map((g) => [g, { total: 0, buckets: [] }]),
  );
  for (const r of rows) {
    const entry = byGroup.get(r.g);
    if (!entry) continue;
    entry.total = Number(r.total);
    shownKeys.push(r.k);
    entry.buckets.push({
      bg: r.g + GROUP_SEP + r.kt,
      docCount: Number(r.c),
      head: termHead(values, r.k),
      subs: {},
    });
  }
  const all = [...byGroup.values()].flatMap((e) => e.buckets);
  if (!subOrder) run.countBuckets(all.length);
  // With one parent group the key filter is exact; with several, a key shown in one group may be cut from another.
  await run.attachSubs(node.subs, membership, all, groups.length > 1);
  const out = new Map<string, unknown>();
  for (const [g, entry] of byGroup) {
    let buckets = entry.buckets;
    if (subOrder) {
      buckets = [...buckets].sort((a, b) => compareBuckets(a, b, spec.order)).slice(0, spec.size);
      run.countBuckets(buckets.length);
    }
    const shown = buckets.reduce((sum, bucket) => sum + bucket.docCount, 0);
    out.set(g, {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: entry.total - shown,
      buckets: buckets.map(renderBucket),
    });
  }
  return out;
}

/** `missing` on an ip or unsigned_long field: compared and grouped as its doc-value key. */
export function keyMissing(type: string | null, missing: unknown): unknown {
  if (missing === undefined || (type !== 'ip' && type !== 'unsigned_long')) return missing;
  if (type === 'unsigned_long') {
    const exact = unsignedLongOf(missing);
    if (exact === undefined)
      throw new EsError(
        'illegal_argument_exception',
        `Value [${String(missing)}] is out of range for unsigned long`,
      );
    return unsignedLongKey(exact);
  }
  const key = ipKey(String(missing));
  if (key === undefined)
    throw new EsError('illegal_argument_exception', `'${String(missing)}' is not an IP string literal.`);
  return key;
}

function metricOf(bucket: Bucket, path: string): number {
  const [name, prop] = path.split('.') as [string, string | undefined];
  // Both names come from the client's order path: own properties only.
  const result = Object.hasOwn(bucket.subs, name)
    ? (bucket.subs[name] as Record<string, unknown>)
    : undefined;
  if (!result) return NaN;
  const v = prop
    ? Object.hasOwn(result, prop)
      ? result[prop]
      : undefined
    : 'value' in result
      ? result.value
      : result.doc_count;
  return v === null || v === undefined ? NaN : Number(v);
}

function compareBuckets(a: Bucket, b: Bucket, order: TermsOrder): number {
  for (const o of order) {
    let d: number;
    if (o.key === '_count') d = a.docCount - b.docCount;
    else if (o.key === '_key') d = compareKeys(a.head.key, b.head.key);
    else {
      const x = metricOf(a, o.key);
      const y = metricOf(b, o.key);
      // Elasticsearch sorts buckets whose metric is missing (NaN) last in either direction.
      if (Number.isNaN(x) || Number.isNaN(y)) {
        if (Number.isNaN(x) !== Number.isNaN(y)) return Number.isNaN(x) ? 1 : -1;
        continue;
      }
      d = x - y;
    }
    if (d !== 0) return o.asc ? d : -d;
  }
  return compareKeys(a.head.key, b.head.key);
}

function compareKeys(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
