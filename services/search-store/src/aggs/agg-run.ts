import { EsError } from '@acme/common';
import { DEFAULT_MAX_BUCKETS, type AggContext, type MatchedSet, type Queryable } from './agg-context';
import type { AggNode } from './agg-types';
import { FieldResolver } from './field-values';
import { byName, type Bucket } from './render-bucket';
import { SqlBuilder, type DocSet } from './sql-builder';

/**
 * Computes one aggregation node for every group: group id → its result. run-aggregations.ts hands
 * AggRun the dispatch over node types, so the aggregations can take an AggRun without this file
 * importing them back.
 */
export type ComputeAgg = (
  run: AggRun,
  node: AggNode,
  docs: DocSet,
  groups: string[],
) => Promise<Map<string, unknown>>;

/** State of one aggregation request: the client, the context, the bucket budget. */
export class AggRun {
  private buckets = 0;
  readonly fields: FieldResolver;
  readonly maxBuckets: number;

  constructor(
    readonly client: Queryable,
    readonly ctx: AggContext,
    readonly matched: MatchedSet,
    private readonly computeNode: ComputeAgg,
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
      const results = await this.computeNode(this, node, docs, groups);
      for (const g of groups) {
        const result = results.get(g);
        (out.get(g) as Record<string, unknown>)[node.name] =
          node.meta === undefined ? result : { meta: node.meta, ...(result as object) };
      }
    }
    return out;
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
}
