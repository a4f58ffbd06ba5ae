import { EsError } from '@acme/common';
import { isIntegerType } from '../mapping/field-types';
import type { AggRun } from './agg-run';
import type { AggNode, CompositeSource } from './agg-types';
import { formatDate, parseDateBound } from './format-date';
import type { FieldValues } from './field-values';
import { checkTimeZone } from './format-date';
import { keySql } from './histogram-agg';
import { renderBucket, type Bucket } from './render-bucket';
import { GROUP_SEP, type DocSet, type SqlBuilder } from './sql-builder';

type CompositeNode = Extract<AggNode, { type: 'composite' }>;

/** Refuses a composite under another aggregation, as Elasticsearch (CompositeAggregationBuilder.validate). */
export function checkCompositePlacement(nodes: AggNode[], parent?: AggNode): void {
  for (const node of nodes) {
    if (node.type === 'composite' && parent)
      throw new EsError(
        'illegal_argument_exception',
        `[composite] aggregation cannot be used with a parent aggregation of type: [${parent.type}]`,
      );
    checkCompositePlacement(node.subs, node);
  }
}

interface Resolved {
  source: CompositeSource;
  values: FieldValues;
  tz: string;
}

/** One source's key per (group, document): a value, or NULL for a document without one (missing_bucket). */
function sourceSql(b: SqlBuilder, docs: DocSet, r: Resolved, i: number): string {
  const { source, values } = r;
  let key = 'x.v';
  if (source.histogram) {
    key = keySql(
      b,
      {
        type: source.kind === 'date_histogram' ? 'date_histogram' : 'histogram',
        name: source.name,
        spec: source.histogram,
        subs: [],
      },
      r.tz,
    );
  }
  const found = `SELECT d.g, d.doc_key, ${key} AS k FROM (${docs(b)}) d JOIN (${values.sql(b)}) x ON x.doc_key = d.doc_key`;
  const withNull = source.missingBucket
    ? `${found} UNION ALL SELECT d.g, d.doc_key, NULL FROM (${docs(b)}) d
         WHERE NOT EXISTS (SELECT 1 FROM (${values.sql(b)}) x WHERE x.doc_key = d.doc_key)`
    : found;
  return `(SELECT DISTINCT s.g, s.doc_key, s.k FROM (${withNull}) s) s${i}`;
}

/** SQL true when the key tuple comes after `after` in the composite order (nulls first ascending, last descending). */
function afterSql(b: SqlBuilder, resolved: Resolved[], after: unknown[]): string {
  const parts: string[] = [];
  const equal: string[] = [];
  resolved.forEach((r, i) => {
    const cast = r.values.column === 'kw' && !r.source.histogram ? 'text' : 'float8';
    const a = after[i];
    const k = `s${i}.k`;
    let later: string;
    if (a === null) later = r.source.asc ? `${k} IS NOT NULL` : 'false';
    else {
      const p = b.param(a, cast);
      later = r.source.asc ? `${k} > ${p}` : `(${k} < ${p} OR ${k} IS NULL)`;
    }
    if (cast === 'text' && a !== null)
      later = later.replace(`${k} >`, `${k} COLLATE "C" >`).replace(`${k} <`, `${k} COLLATE "C" <`);
    parts.push([...equal, later].join(' AND '));
    // Every placeholder must appear in the statement (an unused one has no type): none after the last source.
    if (i < resolved.length - 1) equal.push(a === null ? `${k} IS NULL` : `${k} = ${b.param(a, cast)}`);
  });
  return parts.map((p) => `(${p})`).join(' OR ');
}

function keyOf(r: Resolved, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (r.values.column === 'kw' && !r.source.histogram) return raw;
  const n = Number(raw);
  if (r.source.kind === 'terms' && (isIntegerType(r.values.type) || r.values.type === 'date'))
    return Math.trunc(n);
  if (r.source.kind === 'terms' && r.values.type === 'boolean') return n === 1;
  if (r.source.kind === 'date_histogram' && r.source.histogram?.format !== undefined)
    return formatDate(n, r.source.histogram.format, r.tz);
  return n;
}

function afterValue(r: Resolved, v: unknown, now: number): unknown {
  if (v === null) {
    if (!r.source.missingBucket)
      throw new EsError(
        'illegal_argument_exception',
        `Invalid value for [after.${r.source.name}]: null requires [missing_bucket]`,
      );
    return null;
  }
  if (r.values.column === 'kw' && !r.source.histogram) return String(v);
  if (r.source.kind === 'date_histogram' || r.values.type === 'date') {
    if (typeof v !== 'number' && typeof v !== 'string')
      throw new EsError('illegal_argument_exception', `Invalid value for [after.${r.source.name}]`);
    return parseDateBound(v, now);
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(v);
  if (!Number.isFinite(n))
    throw new EsError(
      'illegal_argument_exception',
      `Invalid value for [after.${r.source.name}]: [${String(v)}]`,
    );
  return n;
}

/**
 * composite (ES "Composite aggregation"): buckets are the distinct key tuples of the sources (a
 * document's values multiply: one bucket per combination), in key order, `size` at a time after
 * `after`; after_key is the last bucket's key, so paging is stable whatever the page size.
 */
export async function computeComposite(
  run: AggRun,
  node: CompositeNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const resolved: Resolved[] = [];
  for (const source of node.spec.sources) {
    const allowKeyword = source.kind === 'terms';
    const values = await run.fields.resolve(source.field, source.kind, allowKeyword);
    resolved.push({ source, values, tz: checkTimeZone(source.histogram?.timeZone) });
  }
  const now = run.ctx.now ?? Date.now();
  const { after } = node.spec;
  let afterValues: unknown[] | undefined;
  if (after) {
    if (after.size !== resolved.length || resolved.some((r) => !after.has(r.source.name)))
      throw new EsError(
        'illegal_argument_exception',
        `[after] has ${after.size} value(s) but [sources] has ${resolved.length}`,
      );
    afterValues = resolved.map((r) => afterValue(r, after.get(r.source.name), now));
  }
  run.countBuckets(0);
  const tuple = (b: SqlBuilder): string => {
    const from = resolved.map((r, i) => sourceSql(b, docs, r, i));
    const joins = from
      .slice(1)
      .map((f, i) => `JOIN ${f} ON s${i + 1}.g = s0.g AND s${i + 1}.doc_key = s0.doc_key`);
    return `FROM ${from[0]} ${joins.join(' ')}`;
  };
  const keyText = resolved.map((_r, i) => `s${i}.k`).join(', ');
  const bucketId = (b: SqlBuilder): string =>
    `s0.g || ${b.param(GROUP_SEP, 'text')} || json_build_array(${keyText})::text`;
  const order = resolved
    .map((r, i) => {
      const col = r.values.column === 'kw' && !r.source.histogram ? `k${i} COLLATE "C"` : `k${i}`;
      return `${col} ${r.source.asc ? 'ASC NULLS FIRST' : 'DESC NULLS LAST'}`;
    })
    .join(', ');
  const rows = await run.query<Record<string, unknown> & { g: string; bg: string; c: string }>((b) => {
    const where = afterValues ? `WHERE ${afterSql(b, resolved, afterValues)}` : '';
    const cols = resolved.map((_r, i) => `s${i}.k AS k${i}`).join(', ');
    return `SELECT * FROM (
        SELECT t.*, row_number() OVER (PARTITION BY t.g ORDER BY ${order}) AS rn FROM (
          SELECT s0.g, ${bucketId(b)} AS bg, ${cols}, count(DISTINCT s0.doc_key) AS c
            ${tuple(b)} ${where} GROUP BY s0.g, ${keyText}) t) y
       WHERE y.rn <= ${b.param(node.spec.size, 'bigint')} ORDER BY y.g, y.rn`;
  });
  const byGroup = new Map<string, Bucket[]>(groups.map((g) => [g, []]));
  for (const r of rows) {
    // Keys are the client's source names: a null-prototype object.
    const key = Object.create(null) as Record<string, unknown>;
    resolved.forEach((res, i) => {
      key[res.source.name] = keyOf(res, r[`k${i}`]);
    });
    byGroup.get(r.g)?.push({ bg: r.bg, docCount: Number(r.c), head: { key }, subs: {} });
  }
  const all = [...byGroup.values()].flat();
  run.countBuckets(all.length);
  const membership: DocSet = (b) => `SELECT s0.doc_key, ${bucketId(b)} AS g ${tuple(b)}`;
  await run.attachSubs(node.subs, membership, all, true);
  const out = new Map<string, unknown>();
  for (const [g, buckets] of byGroup) {
    const last = buckets[buckets.length - 1];
    out.set(g, {
      ...(last ? { after_key: { ...(last.head.key as object) } } : {}),
      buckets: buckets.map(renderBucket),
    });
  }
  return out;
}
