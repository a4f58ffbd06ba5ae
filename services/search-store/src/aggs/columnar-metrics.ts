import { isIntegerType } from '../mapping/field-types';
import { DOC_VALUE_CHUNK, type DocValueChunk } from '../index/doc-value-chunk';
import type { AggNode, MetricType } from './agg-types';
import { fillDocStarts, type Resolved } from './columnar-walk';
import { HyperLogLog, precisionFromThreshold } from './hyper-log-log';
import { renderMetric } from './metric-agg';
import { hashKeyword, hashNumber } from './murmur3';
import { renderPercentiles } from './percentiles-agg';

/**
 * The leaves of a columnar aggregation tree: per bucket slot, what a metric accumulates from the
 * values of the documents that fall in the bucket, rendered as the SQL path renders it
 * (metric-agg.ts, cardinality-agg.ts, percentiles-agg.ts).
 */
export interface LeafCollector {
  readonly node: AggNode;
  /** Where the leaf's field is in the walk's field list. */
  readonly fieldAt: number;
  /** The leaf's field's chunk of the documents about to be added (undefined: none has a value). */
  begin(chunk: DocValueChunk | undefined): void;
  /** Adds every value of document `doc` (offset in the chunk) to the bucket `slot`. */
  add(slot: number, doc: number): void;
  /** The bucket's result; a negative slot is a bucket no document fell in (histogram's empty ones). */
  render(slot: number): unknown;
}

type MetricNode = Extract<AggNode, { type: MetricType }>;
type PercentilesNode = Extract<AggNode, { type: 'percentiles' }>;

const SIMPLE_METRICS: readonly string[] = ['avg', 'sum', 'min', 'max', 'stats', 'value_count'];

/** The field a leaf reads, or undefined when `node` is no leaf the columns compute. */
export function leafField(node: AggNode): { path: string; keyed: boolean } | undefined {
  if (node.subs.length > 0) return undefined;
  if (SIMPLE_METRICS.includes(node.type) || node.type === 'cardinality') {
    const { spec } = node as MetricNode;
    if (spec.missing !== undefined) return undefined;
    return { path: spec.field, keyed: node.type === 'value_count' || node.type === 'cardinality' };
  }
  if (node.type === 'percentiles') {
    if (node.spec.missing !== undefined) return undefined;
    return { path: node.spec.field, keyed: false };
  }
  return undefined;
}

export function createLeaf(node: AggNode, field: Resolved, fieldAt: number): LeafCollector {
  if (node.type === 'cardinality') return new CardinalityLeaf(node, field, fieldAt);
  if (node.type === 'percentiles') return new PercentilesLeaf(node, field, fieldAt);
  return new MetricLeaf(node as MetricNode, field, fieldAt);
}

/** Per chunk, where each document's entries of the leaf's field start. */
abstract class ChunkLeaf {
  protected readonly starts = new Int32Array(DOC_VALUE_CHUNK + 1);
  protected chunk: DocValueChunk | undefined;

  constructor(protected readonly field: Resolved) {}

  begin(chunk: DocValueChunk | undefined): void {
    this.chunk = chunk;
    fillDocStarts(
      chunk ? (this.field.kind === 'num' ? chunk.numDocs : chunk.kwDocs) : new Uint16Array(0),
      this.starts,
    );
  }
}

/** avg, sum, min, max, stats, value_count: count, compensated sum, min and max per slot. */
class MetricLeaf extends ChunkLeaf implements LeafCollector {
  private count: number[] = [];
  private sum: number[] = [];
  private comp: number[] = [];
  private min: number[] = [];
  private max: number[] = [];

  constructor(
    readonly node: MetricNode,
    field: Resolved,
    readonly fieldAt: number,
  ) {
    super(field);
  }

  private ensure(slot: number): void {
    while (this.count.length <= slot) {
      this.count.push(0);
      this.sum.push(0);
      this.comp.push(0);
      this.min.push(Infinity);
      this.max.push(-Infinity);
    }
  }

  add(slot: number, doc: number): void {
    const from = this.starts[doc]!;
    const to = this.starts[doc + 1]!;
    if (from === to) return;
    this.ensure(slot);
    if (this.field.kind === 'kw') {
      this.count[slot]! += to - from;
      return;
    }
    const nums = this.chunk!.nums;
    for (let i = from; i < to; i++) {
      const v = nums[i]!;
      this.count[slot]!++;
      // Kahan summation (Elasticsearch's CompensatedSum).
      const y = v - this.comp[slot]!;
      const s = this.sum[slot]!;
      const t = s + y;
      this.comp[slot] = t - s - y;
      this.sum[slot] = t;
      if (v < this.min[slot]!) this.min[slot] = v;
      if (v > this.max[slot]!) this.max[slot] = v;
    }
  }

  render(slot: number): unknown {
    const count = slot >= 0 ? (this.count[slot] ?? 0) : 0;
    return renderMetric(this.node.type, this.field.type, {
      count,
      sum: count > 0 ? this.sum[slot]! : 0,
      min: count > 0 ? this.min[slot]! : null,
      max: count > 0 ? this.max[slot]! : null,
      distinct: 0,
    });
  }
}

/** Hashes remembered per leaf at most (numbers; a keyword chunk's dictionary is hashed once per chunk). */
const HASH_CACHE = 65_536;

/**
 * cardinality: every value hashed as cardinality-agg.ts hashes it into the slot's HyperLogLog++.
 * A repeated value adds the same hash again, which changes neither the set nor the registers, so
 * the sketch ends as the SQL path's, which adds each distinct value once.
 */
class CardinalityLeaf extends ChunkLeaf implements LeafCollector {
  private readonly sketches: (HyperLogLog | undefined)[] = [];
  private readonly precision: number;
  private readonly integer: boolean;
  private readonly hashes = new Map<string | number, bigint>();
  private ordHashes: bigint[] = [];

  constructor(
    readonly node: MetricNode,
    field: Resolved,
    readonly fieldAt: number,
  ) {
    super(field);
    const threshold = node.spec.precisionThreshold ?? 3000;
    this.precision = precisionFromThreshold(Math.min(Math.max(threshold, 0), 40_000));
    this.integer = isIntegerType(field.type) || field.type === 'date' || field.type === 'boolean';
  }

  private hash(v: string | number): bigint {
    let h = this.hashes.get(v);
    if (h === undefined) {
      h = typeof v === 'string' ? hashKeyword(v) : hashNumber(v, this.integer);
      if (this.hashes.size >= HASH_CACHE) this.hashes.clear();
      this.hashes.set(v, h);
    }
    return h;
  }

  override begin(chunk: DocValueChunk | undefined): void {
    super.begin(chunk);
    this.ordHashes = chunk && this.field.kind === 'kw' ? chunk.dict.map((k) => this.hash(k)) : [];
  }

  add(slot: number, doc: number): void {
    const from = this.starts[doc]!;
    const to = this.starts[doc + 1]!;
    if (from === to) return;
    let sketch = this.sketches[slot];
    if (!sketch) {
      while (this.sketches.length < slot) this.sketches.push(undefined);
      this.sketches[slot] = sketch = new HyperLogLog(this.precision);
    }
    const chunk = this.chunk!;
    if (this.field.kind === 'kw')
      for (let i = from; i < to; i++) sketch.add(this.ordHashes[chunk.kwOrds[i]!]!);
    else for (let i = from; i < to; i++) sketch.add(this.hash(chunk.nums[i]!));
  }

  render(slot: number): unknown {
    return { value: (slot >= 0 ? this.sketches[slot]?.cardinality() : undefined) ?? 0 };
  }
}

/**
 * percentiles: every value of the slot kept, sorted at the end, and each quantile taken as
 * percentiles-agg.ts asks Postgres's percentile_cont to (rank q·n − ½ clamped, linear interpolation
 * between the neighbours: orderedsetaggs.c's float8_lerp), in the same float8 arithmetic.
 */
class PercentilesLeaf extends ChunkLeaf implements LeafCollector {
  private readonly values: (number[] | undefined)[] = [];

  constructor(
    readonly node: PercentilesNode,
    field: Resolved,
    readonly fieldAt: number,
  ) {
    super(field);
  }

  add(slot: number, doc: number): void {
    const from = this.starts[doc]!;
    const to = this.starts[doc + 1]!;
    if (from === to) return;
    let list = this.values[slot];
    if (!list) {
      while (this.values.length < slot) this.values.push(undefined);
      this.values[slot] = list = [];
    }
    const nums = this.chunk!.nums;
    for (let i = from; i < to; i++) list.push(nums[i]!);
  }

  render(slot: number): unknown {
    const list = slot >= 0 ? this.values[slot] : undefined;
    const { spec } = this.node;
    if (!list || list.length === 0) return renderPercentiles(spec, this.field.type === 'date', undefined);
    const sorted = Float64Array.from(list).sort();
    const n = sorted.length;
    const found = spec.percents.map((p) => {
      const f = p / 100;
      const q = n === 1 ? 0 : Math.min(1, Math.max(0, (f * n - 0.5) / (n - 1)));
      const at = q * (n - 1);
      const first = Math.floor(at);
      const second = Math.ceil(at);
      const lo = sorted[first]!;
      if (second <= first) return lo;
      const hi = sorted[second]!;
      return lo + (hi - lo) * (at - first);
    });
    return renderPercentiles(spec, this.field.type === 'date', found);
  }
}
