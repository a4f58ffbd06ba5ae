import { EsError } from '@acme/common';
import { DEFAULT_MAX_BUCKETS, type AggContext, type MatchedSet, type Queryable } from './agg-context';
import type { AggNode } from './agg-types';
import { computeHistogram } from './histogram-agg';
import { computeMetric } from './metric-agg';
import { parseAggs } from './parse-aggs';
import { computeRange } from './range-agg';
import { GROUP_SEP, SqlBuilder, type DocSet } from './sql-builder';
import { computeTerms } from './terms-agg';
import { computeTopHits } from './top-hits-agg';
import { FieldResolver } from './field-values';

/** One bucket before formatting: its group id (for sub-aggregations), doc count and wire fields. */
export interface Bucket {
  bg: string;
  docCount: number;
  /** Wire fields that precede doc_count (key, key_as_string, from, to …). */
  head: Record<string, unknown>;
  /** Sub-aggregation results by the client's names, filled by attachSubs (null prototype: byName()). */
  subs: Record<string, unknown>;
}

/**
 * A dictionary keyed by the client's aggregation names: with no prototype, `__proto__` or `constructor`
 * is an ordinary key (on `{}`, assigning `__proto__` would replace the prototype and lose the result).
 */
export function byName(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/** State of one aggregation request: the client, the context, the bucket budget. */
export class AggRun {
  private buckets = 0;
  readonly fields: FieldResolver;
  readonly maxBuckets: number;

  constructor(
    readonly client: Queryable,
    readonly ctx: AggContext,
    readonly matched: MatchedSet,
  ) {
    this.fields = new FieldResolver(client, ctx, matched);
    this.maxBuckets = ctx.maxBuckets ?? DEFAULT_MAX_BUCKETS;
  }

  async query<R extends Record<string, unknown>>(build: (b: SqlBuilder) => string): Promise<R[]> {
    const b = new SqlBuilder();
    const sql = build(b);
    return (await this.client.query<R>(sql, b.params)).rows;
  }

  /** Elasticsearch's MultiBucketConsumer: the whole response may hold at most search.max_buckets buckets. */
  countBuckets(n: number): void {
    this.buckets += n;
    if (this.buckets > this.maxBuckets) {
      throw new EsError(
        'too_many_buckets_exception',
        `Trying to create too many buckets. Must be less than or equal to: [${this.maxBuckets}] but was [${this.buckets}]. This limit can be set by changing the [search.max_buckets] cluster level setting.`,
        { metadata: { max_buckets: this.maxBuckets } },
      );
    }
  }

  /** Computes sibling aggregations for every group; the result maps group id → {name: result}. */
  async computeAll(
    nodes: AggNode[],
    docs: DocSet,
    groups: string[],
  ): Promise<Map<string, Record<string, unknown>>> {
    const out = new Map<string, Record<string, unknown>>(groups.map((g) => [g, byName()]));
    for (const node of nodes) {
      const results = await this.compute(node, docs, groups);
      for (const g of groups) {
        const result = results.get(g);
        (out.get(g) as Record<string, unknown>)[node.name] =
          node.meta === undefined ? result : { meta: node.meta, ...(result as object) };
      }
    }
    return out;
  }

  private compute(node: AggNode, docs: DocSet, groups: string[]): Promise<Map<string, unknown>> {
    switch (node.type) {
      case 'terms':
        return computeTerms(this, node, docs, groups);
      case 'filter':
        return this.computeFilter(node, docs, groups);
      case 'filters':
        return this.computeFilters(node, docs, groups);
      case 'range':
      case 'date_range':
        return computeRange(this, node, docs, groups);
      case 'histogram':
      case 'date_histogram':
        return computeHistogram(this, node, docs, groups);
      case 'top_hits':
        return computeTopHits(this, node, docs, groups);
      default:
        return computeMetric(this, node, docs, groups);
    }
  }

  /**
   * Runs sub-aggregations over the documents of the given buckets (one query per sub-aggregation).
   * `onlyTheseBuckets` restricts the membership to the given bucket ids; bucket aggregations whose
   * membership already holds only shown buckets skip it (the filter hides row counts from the planner).
   */
  async attachSubs(
    subs: AggNode[],
    membership: DocSet,
    buckets: Bucket[],
    onlyTheseBuckets = false,
  ): Promise<void> {
    if (subs.length === 0 || buckets.length === 0) return;
    const bgs = buckets.map((bucket) => bucket.bg);
    const docs: DocSet = onlyTheseBuckets
      ? (b) => `SELECT s.doc_key, s.g FROM (${membership(b)}) s WHERE s.g = ANY(${b.param(bgs, 'text[]')})`
      : membership;
    const results = await this.computeAll(subs, docs, bgs);
    for (const bucket of buckets) bucket.subs = results.get(bucket.bg) ?? byName();
  }

  private filterSql(query: unknown, b: SqlBuilder): string {
    const translated = this.ctx.translateQuery(query);
    return b.fragment(translated.sql, translated.params);
  }

  private async computeFilter(
    node: Extract<AggNode, { type: 'filter' }>,
    docs: DocSet,
    groups: string[],
  ): Promise<Map<string, unknown>> {
    const membership: DocSet = (b) =>
      `SELECT d.doc_key, d.g FROM (${docs(b)}) d WHERE d.doc_key IN (SELECT q.doc_key FROM (${this.filterSql(node.query, b)}) q)`;
    const rows = await this.query<{ g: string; c: string }>(
      (b) => `SELECT m.g, count(*) AS c FROM (${membership(b)}) m GROUP BY m.g`,
    );
    const counts = new Map(rows.map((r) => [r.g, Number(r.c)]));
    const buckets: Bucket[] = groups.map((g) => ({
      bg: g,
      docCount: counts.get(g) ?? 0,
      head: {},
      subs: {},
    }));
    this.countBuckets(buckets.length);
    await this.attachSubs(node.subs, membership, buckets);
    return new Map(buckets.map((bucket) => [bucket.bg, { doc_count: bucket.docCount, ...bucket.subs }]));
  }

  private async computeFilters(
    node: Extract<AggNode, { type: 'filters' }>,
    docs: DocSet,
    groups: string[],
  ): Promise<Map<string, unknown>> {
    const names = node.filters.map(([name]) => name);
    const membership: DocSet = (b) => {
      const parts = node.filters.map(
        ([name, query]) =>
          `SELECT d.doc_key, d.g || ${b.param(GROUP_SEP + name)} AS g FROM (${docs(b)}) d WHERE d.doc_key IN (SELECT q.doc_key FROM (${this.filterSql(query, b)}) q)`,
      );
      if (node.otherBucketKey !== undefined) {
        const none = node.filters
          .map(([, query]) => `d.doc_key NOT IN (SELECT q.doc_key FROM (${this.filterSql(query, b)}) q)`)
          .join(' AND ');
        parts.push(
          `SELECT d.doc_key, d.g || ${b.param(GROUP_SEP + node.otherBucketKey)} AS g FROM (${docs(b)}) d WHERE ${none}`,
        );
      }
      return parts.join(' UNION ALL ');
    };
    const rows = await this.query<{ g: string; c: string }>(
      (b) => `SELECT m.g, count(*) AS c FROM (${membership(b)}) m GROUP BY m.g`,
    );
    const counts = new Map(rows.map((r) => [r.g, Number(r.c)]));
    const keys = node.otherBucketKey !== undefined ? [...names, node.otherBucketKey] : names;
    const all: Bucket[] = [];
    const byGroup = new Map<string, Array<[string, Bucket]>>();
    for (const g of groups) {
      const list = keys.map((key): [string, Bucket] => {
        const bg = g + GROUP_SEP + key;
        return [key, { bg, docCount: counts.get(bg) ?? 0, head: {}, subs: {} }];
      });
      byGroup.set(g, list);
      all.push(...list.map(([, bucket]) => bucket));
    }
    this.countBuckets(all.length);
    await this.attachSubs(node.subs, membership, all);
    const out = new Map<string, unknown>();
    for (const [g, list] of byGroup) {
      const rendered = list.map(
        ([key, bucket]) => [key, { doc_count: bucket.docCount, ...bucket.subs }] as const,
      );
      out.set(g, {
        buckets: node.keyed ? Object.fromEntries(rendered) : rendered.map(([, bucket]) => bucket),
      });
    }
    return out;
  }
}

/**
 * Computes the `aggs` of a search over the matched documents, in SQL over doc_values: one query per
 * aggregation node whatever the number of buckets (sub-aggregations run for all parent buckets at once).
 * Returns the `aggregations` object of the response.
 */
export async function runAggregations(
  client: Queryable,
  ctx: AggContext,
  matched: MatchedSet,
  aggsBody: unknown,
): Promise<Record<string, unknown>> {
  const nodes = parseAggs(aggsBody);
  const run = new AggRun(client, ctx, matched);
  const top: DocSet = (b) =>
    `SELECT m.doc_key, ''::text AS g FROM (${b.fragment(matched.sql, matched.params)}) m`;
  top.allDocs = matched.all === true;
  const results = await run.computeAll(nodes, top, ['']);
  return results.get('') ?? byName();
}

/** Renders buckets as Elasticsearch lists them: head fields, doc_count, then sub-aggregations. */
export function renderBucket(bucket: Bucket): Record<string, unknown> {
  return { ...bucket.head, doc_count: bucket.docCount, ...bucket.subs };
}
