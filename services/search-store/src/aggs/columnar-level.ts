import { DOC_VALUE_CHUNK, type DocValueChunk } from '../index/doc-value-chunk';
import type { AggNode } from './agg-types';
import type { AggRun } from './agg-run';
import type { Resolved } from './columnar-walk';
import type { LeafCollector } from './columnar-metrics';
import { byName, type Bucket } from './render-bucket';

/** The bucket aggregations a columnar tree holds. */
export type BucketNode = Extract<
  AggNode,
  { type: 'terms' | 'histogram' | 'date_histogram' | 'range' | 'date_range' | 'filter' | 'filters' }
>;

/** A bucket to render with the slot whose sub-results it shows (negative: a bucket no document fell in). */
export interface SlotBucket {
  slot: number;
  bucket: Bucket;
}

/**
 * One bucket aggregation of a columnar tree. A slot is one bucket under one parent bucket (the top
 * level's parent is slot 0 of the root): its key, its parent and how many documents fell in it. Per
 * chunk, `begin` lists each document's distinct keys (`keyStart`, `keyIds`), and `collect` files a
 * document under them, into the leaves' slots and down into the child levels, so a document counts
 * once per bucket as the SQL path's GROUP BY (doc_key, key) counts it.
 */
export abstract class BucketLevel {
  /** node.subs in order, each a leaf or a child level (rendered in that order, as attachSubs computes them). */
  readonly subs: Array<LeafCollector | BucketLevel> = [];
  readonly leaves: LeafCollector[] = [];
  readonly children: BucketLevel[] = [];

  /** Key id → key (a keyword, a number, a histogram key). */
  readonly keys: Array<string | number> = [];
  private readonly keyIds = new Map<string | number, number>();

  readonly slotKey: number[] = [];
  readonly counts: number[] = [];
  private readonly slotOf = new Map<number, Map<number, number>>();
  /** Parent slot → its slots, in the order they were made. */
  readonly slotsByParent = new Map<number, number[]>();

  /** Per chunk: document d's key ids are keyIds[keyStart[d] … keyStart[d + 1]). */
  protected readonly keyStart = new Int32Array(DOC_VALUE_CHUNK + 1);
  protected keyIdList: number[] = [];

  constructor(
    readonly node: BucketNode,
    /** The field whose values are the keys (undefined: the level's keys come from elsewhere, as filters'). */
    readonly field: Resolved | undefined,
    readonly fieldAt: number,
  ) {}

  protected keyId(key: string | number): number {
    let id = this.keyIds.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.keys.push(key);
      this.keyIds.set(key, id);
    }
    return id;
  }

  private slotFor(parent: number, keyId: number): number {
    let byKey = this.slotOf.get(parent);
    if (!byKey) {
      this.slotOf.set(parent, (byKey = new Map()));
      this.slotsByParent.set(parent, []);
    }
    let slot = byKey.get(keyId);
    if (slot === undefined) {
      slot = this.counts.length;
      this.counts.push(0);
      this.slotKey.push(keyId);
      byKey.set(keyId, slot);
      this.slotsByParent.get(parent)!.push(slot);
    }
    return slot;
  }

  /** Lists each document's distinct keys in chunk number `chunkNo` of the level's field (undefined: none). */
  abstract begin(chunk: DocValueChunk | undefined, chunkNo: number): void;

  /** After the walk: whatever needs Postgres before rendering; false sends the request to the SQL path. */
  prepare(_run: AggRun): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** The level's result under each parent slot, counting its buckets as the SQL path does. */
  abstract render(run: AggRun, parents: number[]): Promise<Map<number, unknown>>;

  /** Files document `doc` of the current chunk under `parent`'s buckets for its keys. */
  collect(parent: number, doc: number): void {
    const to = this.keyStart[doc + 1]!;
    for (let i = this.keyStart[doc]!; i < to; i++) {
      const slot = this.slotFor(parent, this.keyIdList[i]!);
      this.counts[slot]!++;
      for (const leaf of this.leaves) leaf.add(slot, doc);
      for (const child of this.children) child.collect(slot, doc);
    }
  }

  /** Fills the buckets' sub-aggregation results, sub by sub in the request's order. */
  async renderSubs(run: AggRun, buckets: SlotBucket[]): Promise<void> {
    for (const { bucket } of buckets) bucket.subs = byName();
    if (buckets.length === 0) return;
    for (const sub of this.subs) {
      const results =
        sub instanceof BucketLevel
          ? await sub.render(
              run,
              buckets.map((b) => b.slot),
            )
          : undefined;
      for (const { slot, bucket } of buckets) {
        const r = results ? results.get(slot) : (sub as LeafCollector).render(slot);
        bucket.subs[sub.node.name] =
          sub.node.meta === undefined ? r : { meta: sub.node.meta, ...(r as object) };
      }
    }
  }
}
