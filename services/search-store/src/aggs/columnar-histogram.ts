import { DOC_VALUE_CHUNK, type DocValueChunk } from '../index/doc-value-chunk';
import type { AggNode } from './agg-types';
import type { AggRun } from './agg-run';
import { BucketLevel, type SlotBucket } from './columnar-level';
import type { Resolved } from './columnar-walk';
import { ZoneOffsets } from './columnar-zone';
import { checkTimeZone, formatDate, parseDateBound } from './format-date';
import { fillKeys, orderBuckets, zoneSql } from './histogram-agg';
import { renderBucket } from './render-bucket';

type HistogramNode = Extract<AggNode, { type: 'histogram' | 'date_histogram' }>;

const DAY = 86_400_000;

/** Whether the columns can answer this histogram node's own part (its subs are checked by the tree). */
export function isColumnarHistogram(node: AggNode): node is HistogramNode {
  return (
    (node.type === 'histogram' || node.type === 'date_histogram') &&
    node.spec.missing === undefined &&
    node.spec.order.every((o) => o.key === '_count' || o.key === '_key')
  );
}

/**
 * The start of the calendar unit holding local time `local` (epoch ms read as a wall clock in UTC):
 * Postgres's date_trunc on a timestamp, weeks from Monday (ISO 8601).
 */
function truncLocal(local: number, unit: NonNullable<HistogramNode['spec']['calendar']>): number {
  switch (unit) {
    case 'minute':
      return Math.floor(local / 60_000) * 60_000;
    case 'hour':
      return Math.floor(local / 3_600_000) * 3_600_000;
    case 'day':
      return Math.floor(local / DAY) * DAY;
    case 'week': {
      const day = Math.floor(local / DAY);
      // 1970-01-01 was a Thursday: three days after a Monday.
      return (day - ((((day + 3) % 7) + 7) % 7)) * DAY;
    }
    default: {
      const d = new Date(Math.floor(local / DAY) * DAY);
      const month = d.getUTCMonth();
      d.setUTCMonth(unit === 'month' ? month : unit === 'quarter' ? month - (month % 3) : 0, 1);
      return d.getTime();
    }
  }
}

/**
 * histogram / date_histogram over the columns (histogram-agg.ts's answer). A fixed interval's key is
 * computed in Node in the same float8 arithmetic as the SQL (floor((v − offset) / interval) × interval
 * + offset). A calendar interval's bucket is the wall-clock start of the unit holding the value in the
 * zone; its key, that wall clock back through the zone (Postgres's rules for skipped and repeated
 * hours) plus the offset, is asked of Postgres once per bucket, with the SQL path's own expression.
 */
export class HistogramLevel extends BucketLevel {
  declare readonly node: HistogramNode;
  private readonly tz: string;
  private readonly zone: ZoneOffsets | undefined;
  /** Calendar intervals: key id (a wall-clock bucket start) → the bucket key, from Postgres. */
  private calendarKeys: number[] = [];

  constructor(node: HistogramNode, field: Resolved, fieldAt: number) {
    super(node, field, fieldAt);
    this.tz = checkTimeZone(node.spec.timeZone);
    this.zone = node.spec.calendar ? new ZoneOffsets(this.tz) : undefined;
  }

  begin(chunk: DocValueChunk | undefined): void {
    const ids = (this.keyIdList = []) as number[];
    const starts = this.keyStart;
    const { spec } = this.node;
    let d = 0;
    if (chunk) {
      const { numDocs: docs, nums } = chunk;
      const { interval, offset, calendar } = spec;
      const zone = this.zone;
      let lastDoc = -1;
      let lastKey = NaN;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        while (d <= doc) starts[d++] = ids.length;
        const v = nums[i]!;
        let key: number;
        if (calendar && zone) {
          key = truncLocal(v + zone.offsetAt(v), calendar);
          // Wall clocks repeat when clocks go back: a document's keys need not ascend, so look back.
          let seen = false;
          for (let j = starts[doc]!; j < ids.length && !seen; j++) seen = this.keys[ids[j]!] === key;
          if (seen) continue;
        } else {
          key = Math.floor((v - offset) / interval!) * interval! + offset;
          // A document's values ascend, so do its keys: a repeat is the previous one.
          if (doc === lastDoc && key === lastKey) continue;
          lastDoc = doc;
          lastKey = key;
        }
        ids.push(this.keyId(key));
      }
    }
    while (d <= DOC_VALUE_CHUNK) starts[d++] = ids.length;
  }

  /** Calendar keys from Postgres; false (the SQL path) if its zone rules disagree with ICU's offsets. */
  override async prepare(run: AggRun): Promise<boolean> {
    const zone = this.zone;
    if (!zone) return true;
    if (zone.needsCheck) {
      const { at, offsets } = zone.samples();
      if (at.length > 0) {
        const rows = await run.query<{ off: string | number }>(
          (b) =>
            `SELECT extract(epoch FROM to_timestamp(u.t / 1000.0) AT TIME ZONE ${zoneSql(b, this.tz)}) * 1000 - u.t AS off
               FROM unnest(${b.param(at, 'float8[]')}) WITH ORDINALITY AS u(t, i) ORDER BY u.i`,
        );
        if (rows.some((r, i) => Number(r.off) !== offsets[i])) return false;
      }
    }
    if (this.keys.length === 0) return true;
    const rows = await run.query<{ k: string | number }>((b) => {
      const zone = zoneSql(b, this.tz);
      return `SELECT extract(epoch FROM (to_timestamp(u.n / 1000.0) AT TIME ZONE 'UTC') AT TIME ZONE ${zone}) * 1000
                     + ${b.param(this.node.spec.offset, 'float8')} AS k
                FROM unnest(${b.param(this.keys, 'float8[]')}) WITH ORDINALITY AS u(n, i) ORDER BY u.i`;
    });
    this.calendarKeys = rows.map((r) => Number(r.k));
    // Two wall clocks on one instant would be one bucket in SQL: not worth merging here.
    return new Set(this.calendarKeys).size === this.calendarKeys.length;
  }

  async render(run: AggRun, parents: number[]): Promise<Map<number, unknown>> {
    const { node } = this;
    const { spec } = node;
    const isDate = node.type === 'date_histogram';
    const now = run.ctx.now ?? Date.now();
    const bound = (v: number | string | undefined): number | undefined =>
      v === undefined ? undefined : isDate ? parseDateBound(v, now) : Number(v);
    const hardMin = bound(spec.hardBounds?.min);
    const hardMax = bound(spec.hardBounds?.max);
    const keyOf = (slot: number): number =>
      spec.calendar ? this.calendarKeys[this.slotKey[slot]!]! : (this.keys[this.slotKey[slot]!] as number);
    const found: Map<number, number>[] = [];
    const keysByParent: number[][] = [];
    for (const parent of parents) {
      const hits = new Map<number, number>();
      for (const slot of this.slotsByParent.get(parent) ?? []) {
        const k = keyOf(slot);
        // As Postgres compares: NaN above every number (k >= NaN is false, k <= NaN true).
        if (hardMin !== undefined && !(k >= hardMin)) continue;
        if (hardMax !== undefined && k > hardMax) continue;
        hits.set(k, slot);
      }
      found.push(hits);
      const keys = [...hits.keys()].sort((a, b) => a - b);
      keysByParent.push(spec.minDocCount === 0 ? await fillKeys(run, node, keys, this.tz, now) : keys);
    }
    let empty = -1;
    const perParent: SlotBucket[][] = parents.map((_p, i) => {
      const hits = found[i]!;
      const buckets: SlotBucket[] = [];
      for (const k of keysByParent[i]!) {
        const slot = hits.get(k);
        const count = slot === undefined ? 0 : this.counts[slot]!;
        if (count < spec.minDocCount) continue;
        const head = isDate ? { key_as_string: formatDate(k, spec.format, this.tz), key: k } : { key: k };
        buckets.push({ slot: slot ?? empty--, bucket: { bg: '', docCount: count, head, subs: {} } });
      }
      run.countBuckets(buckets.length);
      return buckets;
    });
    await this.renderSubs(run, perParent.flat());
    const out = new Map<number, unknown>();
    parents.forEach((parent, i) => {
      const ordered = orderBuckets(
        perParent[i]!.map((b) => b.bucket),
        node,
      );
      if (!spec.keyed) out.set(parent, { buckets: ordered.map(renderBucket) });
      else
        out.set(parent, {
          buckets: Object.fromEntries(
            ordered.map((bucket) => [
              String(bucket.head.key_as_string ?? bucket.head.key),
              renderBucket(bucket),
            ]),
          ),
        });
    });
    return out;
  }
}
