import { DOC_VALUE_CHUNK, type DocValueChunk } from '../index/doc-value-chunk';
import type { AggNode, TermsOrder } from './agg-types';
import type { AggRun } from './agg-run';
import { BucketLevel, type SlotBucket } from './columnar-level';
import type { Resolved } from './columnar-walk';
import type { FieldValues } from './field-values';
import { renderBucket } from './render-bucket';
import { termHead } from './terms-agg';

type TermsNode = Extract<AggNode, { type: 'terms' }>;

/** Whether the columns can answer this terms node's own part (its subs are checked by the tree). */
export function isColumnarTerms(node: AggNode): node is TermsNode {
  return (
    node.type === 'terms' &&
    node.spec.missing === undefined &&
    node.spec.order.every((o) => o.key === '_count' || o.key === '_key')
  );
}

/**
 * terms over the columns (terms-agg.ts's answer): keywords by their chunk ordinals, numbers by value;
 * the first `size` buckets per parent by the order then key ascending (keys in byte order),
 * sum_other_doc_count over every bucket of the parent, doc_count_error_upper_bound 0 (one shard).
 */
export class TermsLevel extends BucketLevel {
  declare readonly node: TermsNode;
  declare readonly field: Resolved;

  begin(chunk: DocValueChunk | undefined): void {
    const ids = (this.keyIdList = []) as number[];
    const starts = this.keyStart;
    let d = 0;
    if (chunk) {
      const kw = this.field.kind === 'kw';
      const docs = kw ? chunk.kwDocs : chunk.numDocs;
      const ordKeys = kw ? chunk.dict.map((k) => this.keyId(k)) : undefined;
      let lastDoc = -1;
      let lastValue = NaN;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        while (d <= doc) starts[d++] = ids.length;
        const value = ordKeys ? chunk.kwOrds[i]! : chunk.nums[i]!;
        // A document counts once per bucket though a value repeats in it (SORTED_NUMERIC keeps repeats).
        if (doc === lastDoc && value === lastValue) continue;
        lastDoc = doc;
        lastValue = value;
        ids.push(ordKeys ? ordKeys[value]! : this.keyId(value));
      }
    }
    while (d <= DOC_VALUE_CHUNK) starts[d++] = ids.length;
  }

  async render(run: AggRun, parents: number[]): Promise<Map<number, unknown>> {
    const { spec } = this.node;
    const minDocCount = Math.max(spec.minDocCount, 1);
    const compareKey =
      this.field.kind === 'kw'
        ? (a: number, b: number) =>
            compareCodePoints(this.keys[this.slotKey[a]!] as string, this.keys[this.slotKey[b]!] as string)
        : (a: number, b: number) =>
            (this.keys[this.slotKey[a]!] as number) - (this.keys[this.slotKey[b]!] as number);
    const values = { type: this.field.type, column: this.field.kind } as FieldValues;
    const perParent: { total: number; buckets: SlotBucket[] }[] = [];
    for (const parent of parents) {
      const slots = this.slotsByParent.get(parent) ?? [];
      let total = 0;
      const kept: number[] = [];
      for (const slot of slots) {
        total += this.counts[slot]!;
        if (this.counts[slot]! >= minDocCount) kept.push(slot);
      }
      const shown = topSlots(kept, spec.size, spec.order, this.counts, compareKey);
      perParent.push({
        total,
        buckets: shown.map((slot) => ({
          slot,
          bucket: {
            bg: '',
            docCount: this.counts[slot]!,
            head: termHead(values, this.keys[this.slotKey[slot]!]!),
            subs: {},
          },
        })),
      });
    }
    const all = perParent.flatMap((p) => p.buckets);
    run.countBuckets(all.length);
    await this.renderSubs(run, all);
    const out = new Map<number, unknown>();
    parents.forEach((parent, i) => {
      const { total, buckets } = perParent[i]!;
      const shownCount = buckets.reduce((sum, b) => sum + b.bucket.docCount, 0);
      out.set(parent, {
        doc_count_error_upper_bound: 0,
        // The SQL path reads the total off the shown rows: none shown, none other.
        sum_other_doc_count: buckets.length === 0 ? 0 : total - shownCount,
        buckets: buckets.map((b) => renderBucket(b.bucket)),
      });
    });
    return out;
  }
}

/** The first `size` slots by the order, then key ascending (terms-agg.ts's orderSql). */
function topSlots(
  slots: number[],
  size: number,
  order: TermsOrder,
  counts: number[],
  compareKey: (a: number, b: number) => number,
): number[] {
  if (size <= 0) return [];
  const compare = (a: number, b: number): number => {
    for (const o of order) {
      const d = o.key === '_count' ? counts[a]! - counts[b]! : compareKey(a, b);
      if (d !== 0) return o.asc ? d : -d;
    }
    return compareKey(a, b);
  };
  if (slots.length <= size * 4) return slots.sort(compare).slice(0, size);
  // Many more candidates than shown: keep the best `size` in one pass (a sorted window).
  const best: number[] = [];
  for (const slot of slots) {
    if (best.length === size && compare(slot, best[size - 1]!) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid]!, slot) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, slot);
    if (best.length > size) best.pop();
  }
  return best;
}

/**
 * Strings in code point order, which is UTF-8's byte order (COLLATE "C", Lucene's BytesRef): UTF-16
 * units agree except that surrogates (U+D800–DFFF) sort above U+E000–FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
