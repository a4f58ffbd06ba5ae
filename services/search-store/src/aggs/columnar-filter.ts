import { readSortedDocKeys } from '../index/doc-value-columns-reader';
import { DOC_VALUE_CHUNK, type DocValueChunk } from '../index/doc-value-chunk';
import type { AggNode } from './agg-types';
import type { AggRun } from './agg-run';
import { BucketLevel, type SlotBucket } from './columnar-level';

type FilterNode = Extract<AggNode, { type: 'filter' | 'filters' }>;

/**
 * `filter` / `filters` below another bucket aggregation, over the columns (filter-agg.ts's answer):
 * each query's matching doc keys are read once, sorted, and a document of the parent bucket falls in
 * every bucket whose query it matches (the `other_bucket_key` bucket when it matches none). At the top
 * level a filter's bucket holds documents with no value of any field read, which the walk never
 * visits: the tree leaves those to the SQL path.
 */
export class FilterLevel extends BucketLevel {
  declare readonly node: FilterNode;
  /** Per query, its matches' doc keys ascending. */
  private matches: Float64Array[] = [];
  private readonly keyNames: string[];

  constructor(node: FilterNode) {
    super(node, undefined, -1);
    this.keyNames =
      node.type === 'filter'
        ? ['']
        : [
            ...node.filters.map(([name]) => name),
            ...(node.otherBucketKey === undefined ? [] : [node.otherBucketKey]),
          ];
    // Key id i is bucket i (the other bucket last).
    this.keyNames.forEach((_k, i) => this.keyId(i));
  }

  /** Reads each query's matches (before the walk). */
  async setUp(run: AggRun): Promise<void> {
    const queries = this.node.type === 'filter' ? [this.node.query] : this.node.filters.map(([, q]) => q);
    this.matches = [];
    for (const query of queries) {
      const { sql, params } = run.ctx.translateQuery(query);
      this.matches.push(await readSortedDocKeys(run.client, sql, params));
    }
  }

  begin(_chunk: DocValueChunk | undefined, chunkNo: number): void {
    const base = chunkNo * DOC_VALUE_CHUNK;
    const inQuery = this.matches.map((keys) => {
      const member = new Uint8Array(DOC_VALUE_CHUNK);
      for (let k = lowerBound(keys, base); k < keys.length && keys[k]! < base + DOC_VALUE_CHUNK; k++)
        member[keys[k]! - base] = 1;
      return member;
    });
    const other =
      this.node.type === 'filters' && this.node.otherBucketKey !== undefined ? inQuery.length : -1;
    const ids = (this.keyIdList = []) as number[];
    for (let d = 0; d < DOC_VALUE_CHUNK; d++) {
      this.keyStart[d] = ids.length;
      for (let q = 0; q < inQuery.length; q++) if (inQuery[q]![d] === 1) ids.push(q);
      if (other >= 0 && ids.length === this.keyStart[d]) ids.push(other);
    }
    this.keyStart[DOC_VALUE_CHUNK] = ids.length;
  }

  async render(run: AggRun, parents: number[]): Promise<Map<number, unknown>> {
    let empty = -1;
    const perParent: SlotBucket[][] = parents.map((parent) => {
      const slotOf = new Map<number, number>();
      for (const slot of this.slotsByParent.get(parent) ?? []) slotOf.set(this.slotKey[slot]!, slot);
      return this.keyNames.map((_name, i) => {
        const slot = slotOf.get(i);
        return {
          slot: slot ?? empty--,
          bucket: { bg: '', docCount: slot === undefined ? 0 : this.counts[slot]!, head: {}, subs: {} },
        };
      });
    });
    const all = perParent.flat();
    run.countBuckets(all.length);
    await this.renderSubs(run, all);
    const out = new Map<number, unknown>();
    parents.forEach((parent, p) => {
      const rendered = perParent[p]!.map(({ bucket }) => ({ doc_count: bucket.docCount, ...bucket.subs }));
      if (this.node.type === 'filter') out.set(parent, rendered[0]);
      else
        out.set(parent, {
          buckets: this.node.keyed
            ? Object.fromEntries(rendered.map((bucket, i) => [this.keyNames[i]!, bucket]))
            : rendered,
        });
    });
    return out;
  }
}

/** The first index whose key is ≥ `key`. */
function lowerBound(keys: Float64Array, key: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
