import { DOC_VALUE_CHUNK, type DocValueChunk } from '../index/doc-value-chunk';
import type { AggNode } from './agg-types';
import type { AggRun } from './agg-run';
import { BucketLevel, type SlotBucket } from './columnar-level';
import type { Resolved } from './columnar-walk';
import { checkTimeZone } from './format-date';
import { rangeHead, renderRanges, sortedRanges, type SortedRange } from './range-agg';

type RangeNode = Extract<AggNode, { type: 'range' | 'date_range' }>;

/** Whether the columns can answer this range node's own part (its subs are checked by the tree). */
export function isColumnarRange(node: AggNode): node is RangeNode {
  return (node.type === 'range' || node.type === 'date_range') && node.spec.missing === undefined;
}

/** Postgres's float8 order: NaN above every number. */
const atLeast = (v: number, lo: number): boolean => (Number.isNaN(lo) ? false : v >= lo);
const below = (v: number, hi: number): boolean => (Number.isNaN(hi) ? true : v < hi);

/**
 * range / date_range over the columns (range-agg.ts's answer): a document falls in every range with
 * from ≤ one of its values < to, once per range; every range is listed, empty or not.
 */
export class RangeLevel extends BucketLevel {
  declare readonly node: RangeNode;
  private ranges: SortedRange[] | undefined;
  /** Per range, the last document filed under it in this chunk (a document counts once a range). */
  private readonly lastDoc: Int32Array;

  constructor(node: RangeNode, field: Resolved, fieldAt: number) {
    super(node, field, fieldAt);
    this.lastDoc = new Int32Array(node.spec.ranges.length);
  }

  /** The ranges, parsed once ("now" is the request's). */
  private rangesOf(run: AggRun | undefined): SortedRange[] {
    this.ranges ??= sortedRanges(this.node, run?.ctx.now ?? Date.now());
    return this.ranges;
  }

  /** Parses the bounds and the zone before the walk, so bad ones fail as the SQL path fails. */
  setUp(run: AggRun): void {
    checkTimeZone(this.node.spec.timeZone);
    const ranges = this.rangesOf(run);
    ranges.forEach((_r, i) => this.keyId(i));
  }

  begin(chunk: DocValueChunk | undefined): void {
    const ids = (this.keyIdList = []) as number[];
    const starts = this.keyStart;
    const ranges = this.rangesOf(undefined);
    this.lastDoc.fill(-1);
    let d = 0;
    if (chunk) {
      const { numDocs: docs, nums } = chunk;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        while (d <= doc) starts[d++] = ids.length;
        const v = nums[i]!;
        for (let r = 0; r < ranges.length; r++) {
          const { from, to } = ranges[r]!;
          if (this.lastDoc[r] === doc) continue;
          if ((from === null || atLeast(v, from)) && (to === null || below(v, to))) {
            this.lastDoc[r] = doc;
            ids.push(r);
          }
        }
      }
    }
    while (d <= DOC_VALUE_CHUNK) starts[d++] = ids.length;
  }

  async render(run: AggRun, parents: number[]): Promise<Map<number, unknown>> {
    const ranges = this.rangesOf(run);
    const slotOf = new Map<number, number>();
    let empty = -1;
    const perParent: SlotBucket[][] = parents.map((parent) => {
      slotOf.clear();
      for (const slot of this.slotsByParent.get(parent) ?? []) slotOf.set(this.slotKey[slot]!, slot);
      return ranges.map((r, i) => {
        const slot = slotOf.get(i);
        return {
          slot: slot ?? empty--,
          bucket: {
            bg: '',
            docCount: slot === undefined ? 0 : this.counts[slot]!,
            head: rangeHead(this.node, r),
            subs: {},
          },
        };
      });
    });
    const all = perParent.flat();
    run.countBuckets(all.length);
    await this.renderSubs(run, all);
    const out = new Map<number, unknown>();
    parents.forEach((parent, i) =>
      out.set(
        parent,
        renderRanges(
          this.node.spec.keyed,
          perParent[i]!.map((b) => b.bucket),
        ),
      ),
    );
    return out;
  }
}
