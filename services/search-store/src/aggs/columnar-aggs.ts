import { isNumericType } from '../mapping/field-types';
import type { DocValueChunk } from '../index/doc-value-chunk';
import { DOC_VALUE_CHUNK } from '../index/doc-value-chunk';
import { listDocValueChunks, readDocValueChunks, readSortedDocKeys } from '../index/doc-value-columns-reader';
import type { AggField, MatchedSet } from './agg-context';
import type { AggRun } from './agg-run';
import type { AggNode, MetricType, TermsOrder } from './agg-types';
import type { FieldValues } from './field-values';
import { renderMetric } from './metric-agg';
import { byName, renderBucket, type Bucket } from './render-bucket';
import { termHead } from './terms-agg';

/**
 * Aggregations over the column-wise doc values (migration 0027) instead of SQL over the row-wise ones:
 * `terms` (keyword, ip, unsigned_long, numeric, date, boolean) with metric sub-aggregations, and the
 * metrics avg/sum/min/max/stats/value_count, at the top level of the request, over every document or
 * over the matched doc keys. The chunks of the fields are read a page at a time (the next page is
 * asked for while this one is counted), so memory holds a page of chunks plus one slot per bucket,
 * never a row per value. Results equal the SQL path's (aggs/terms-agg.ts, aggs/metric-agg.ts): the
 * same bucket order (count desc, key asc; keys in byte order), sum_other_doc_count and
 * doc_count_error_upper_bound 0 (one shard: exact counts). Sums are compensated (Kahan), as
 * Elasticsearch's CompensatedSum. Anything else (nested paths, runtime, flattened, date_nanos fields,
 * `missing`, ordering by a sub-aggregation, sub-aggregations other than those metrics, pipelines under
 * terms) returns undefined and runs the SQL path.
 */

/** Chunks per statement: ~4,096 × (2 + 8) bytes each for a numeric field. */
const PAGE_CHUNKS = 64;

const COLUMNAR_METRICS: readonly string[] = ['avg', 'sum', 'min', 'max', 'stats', 'value_count'];

type Kind = 'num' | 'kw';
type Resolved = { type: string; kind: Kind; unique: boolean; byIndex: Map<string, number> };

/** The field's column and its id per index, or undefined when the SQL path must decide. */
function resolveField(
  run: AggRun,
  path: string,
  forTerms: boolean,
  countOnly: boolean,
): Resolved | undefined {
  if (run.ctx.runtimeFields?.has(path)) return undefined;
  const fields: AggField[] = run.ctx.fieldsByPath(path);
  const first = fields[0];
  if (!first || fields.some((f) => f.type !== first.type)) return undefined;
  const { type } = first;
  let kind: Kind;
  if (type === 'keyword' || type === 'ip' || (type === 'unsigned_long' && forTerms)) {
    if (!forTerms && !countOnly) return undefined;
    kind = 'kw';
  } else if (isNumericType(type) || type === 'date' || type === 'boolean') {
    kind = 'num';
  } else return undefined;
  return {
    type,
    kind,
    // Keyword and ip doc values are deduplicated at index time (field-values.ts); others keep repeats.
    unique: kind === 'kw' && type !== 'unsigned_long',
    byIndex: new Map(fields.map((f) => [f.indexId, f.fieldId])),
  };
}

type MetricNode = Extract<AggNode, { type: MetricType }>;
type TermsNode = Extract<AggNode, { type: 'terms' }>;

function isMetric(node: AggNode): node is MetricNode {
  return COLUMNAR_METRICS.includes(node.type);
}

/** Per bucket (or the one top-level group): count, compensated sum, min and max of a metric's values. */
class MetricSlots {
  count: number[] = [];
  sum: number[] = [];
  comp: number[] = [];
  min: number[] = [];
  max: number[] = [];

  ensure(slot: number): void {
    while (this.count.length <= slot) {
      this.count.push(0);
      this.sum.push(0);
      this.comp.push(0);
      this.min.push(Infinity);
      this.max.push(-Infinity);
    }
  }

  add(slot: number, v: number): void {
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

  render(node: MetricNode, type: string, slot: number): unknown {
    const count = this.count[slot] ?? 0;
    return renderMetric(node.type, type, {
      count,
      sum: count > 0 ? this.sum[slot]! : 0,
      min: count > 0 ? this.min[slot]! : null,
      max: count > 0 ? this.max[slot]! : null,
      distinct: 0,
    });
  }
}

/** The matched documents: every one, or the sorted keys of the query's matches. */
type Matched = { all: true } | { all: false; keys: Float64Array };

/**
 * Walks the chunks of `driver` (the field whose values decide which documents count) for each index,
 * a page at a time, handing each chunk with the other fields' same chunk and the matched documents'
 * membership (undefined: every document).
 */
async function walkChunks(
  run: AggRun,
  matched: Matched,
  driver: Resolved,
  others: Resolved[],
  visit: (fields: (DocValueChunk | undefined)[], member: Uint8Array | undefined) => void,
): Promise<void> {
  for (const indexId of run.ctx.indexIds) {
    const driverId = driver.byIndex.get(indexId);
    if (driverId === undefined) continue;
    const ids = [driverId, ...others.map((o) => o.byIndex.get(indexId) ?? -1)];
    let chunks = await listDocValueChunks(run.client, indexId, [driverId]);
    let keyAt = 0;
    if (!matched.all) {
      const wanted = new Set<number>();
      for (const k of matched.keys) wanted.add(Math.floor(k / DOC_VALUE_CHUNK));
      chunks = chunks.filter((c) => wanted.has(c));
    }
    const page = (from: number) =>
      readDocValueChunks(
        run.client,
        indexId,
        ids.filter((id) => id >= 0),
        chunks.slice(from, from + PAGE_CHUNKS),
      );
    let next = chunks.length > 0 ? page(0) : undefined;
    const member = matched.all ? undefined : new Uint8Array(DOC_VALUE_CHUNK);
    for (let from = 0; next; from += PAGE_CHUNKS) {
      const read = await next;
      // The next page is read by Postgres while Node counts this one.
      next = from + PAGE_CHUNKS < chunks.length ? page(from + PAGE_CHUNKS) : undefined;
      next?.catch(() => undefined);
      for (const chunk of chunks.slice(from, from + PAGE_CHUNKS)) {
        if (member && !matched.all) {
          member.fill(0);
          const base = chunk * DOC_VALUE_CHUNK;
          const keys = matched.keys;
          while (keyAt < keys.length && keys[keyAt]! < base) keyAt++;
          for (let k = keyAt; k < keys.length && keys[k]! < base + DOC_VALUE_CHUNK; k++)
            member[keys[k]! - base] = 1;
        }
        visit(
          ids.map((id) => (id >= 0 ? read.get(id)?.get(chunk) : undefined)),
          member,
        );
      }
    }
  }
}

/** A chunk's entries of one kind: doc offsets and, for numbers, values. */
function entriesOf(chunk: DocValueChunk | undefined, kind: Kind): { docs: Uint16Array; nums: Float64Array } {
  if (!chunk) return { docs: new Uint16Array(0), nums: new Float64Array(0) };
  return kind === 'num'
    ? { docs: chunk.numDocs, nums: chunk.nums }
    : { docs: chunk.kwDocs, nums: new Float64Array(0) };
}

/**
 * Computes `node` at the top level column-wise, or returns undefined (the caller runs the SQL path).
 * `groups` is the top level's one group ''.
 */
export async function computeColumnar(
  run: AggRun,
  node: AggNode,
  matchedSet: MatchedSet,
): Promise<Map<string, unknown> | undefined> {
  if (run.ctx.columnar === false || (run.ctx.nested?.paths.length ?? 0) > 0) return undefined;
  if (isMetric(node)) {
    if (node.spec.missing !== undefined || node.subs.length > 0) return undefined;
    const field = resolveField(run, node.spec.field, false, node.type === 'value_count');
    if (!field) return undefined;
    const matched = await matchedDocs(run, matchedSet);
    const slots = new MetricSlots();
    slots.ensure(0);
    await walkChunks(run, matched, field, [], ([chunk], member) => {
      const { docs, nums } = entriesOf(chunk, field.kind);
      const counting = field.kind === 'kw';
      for (let i = 0; i < docs.length; i++) {
        if (member && member[docs[i]!] === 0) continue;
        if (counting) slots.count[0]!++;
        else slots.add(0, nums[i]!);
      }
    });
    return new Map([['', slots.render(node, field.type, 0)]]);
  }
  if (node.type === 'terms') return computeColumnarTerms(run, node, matchedSet);
  return undefined;
}

async function matchedDocs(run: AggRun, matched: MatchedSet): Promise<Matched> {
  if (matched.all === true) return { all: true };
  return { all: false, keys: await readSortedDocKeys(run.client, matched.sql, matched.params) };
}

async function computeColumnarTerms(
  run: AggRun,
  node: TermsNode,
  matchedSet: MatchedSet,
): Promise<Map<string, unknown> | undefined> {
  const { spec } = node;
  if (spec.missing !== undefined) return undefined;
  if (spec.order.some((o) => o.key !== '_count' && o.key !== '_key')) return undefined;
  if (!node.subs.every((s) => isMetric(s) && s.subs.length === 0 && s.spec.missing === undefined))
    return undefined;
  const field = resolveField(run, spec.field, true, false);
  if (!field) return undefined;
  const subs = node.subs as MetricNode[];
  const subFields: Resolved[] = [];
  for (const sub of subs) {
    const resolved = resolveField(run, sub.spec.field, false, sub.type === 'value_count');
    if (!resolved) return undefined;
    subFields.push(resolved);
  }
  const matched = await matchedDocs(run, matchedSet);

  // Bucket slots by key: keywords by string, numbers by value.
  const slotOf = new Map<string | number, number>();
  const keys: Array<string | number> = [];
  const counts: number[] = [];
  const metrics = subs.map(() => new MetricSlots());
  const slotFor = (key: string | number): number => {
    let slot = slotOf.get(key);
    if (slot === undefined) {
      slot = keys.length;
      slotOf.set(key, slot);
      keys.push(key);
      counts.push(0);
      for (const m of metrics) m.ensure(slot);
    }
    return slot;
  };
  const dedupe = !field.unique;
  await walkChunks(run, matched, field, subFields, ([chunk, ...subChunks], member) => {
    if (!chunk) return;
    const docs = field.kind === 'num' ? chunk.numDocs : chunk.kwDocs;
    const slotByOrd = field.kind === 'kw' ? chunk.dict.map(slotFor) : undefined;
    const subEntries = subChunks.map((c, s) => entriesOf(c, subFields[s]!.kind));
    const subAt = subEntries.map(() => 0);
    let lastDoc = -1;
    let lastValue = NaN;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (member && member[doc] === 0) continue;
      const value = slotByOrd ? chunk.kwOrds[i]! : chunk.nums[i]!;
      // A document counts once per bucket though a value repeats in it (SORTED_NUMERIC keeps repeats).
      if (dedupe && doc === lastDoc && value === lastValue) continue;
      lastDoc = doc;
      lastValue = value;
      const slot = slotByOrd ? slotByOrd[value]! : slotFor(value);
      counts[slot]!++;
      for (let s = 0; s < subEntries.length; s++) {
        const { docs: subDocs, nums } = subEntries[s]!;
        let at = subAt[s]!;
        while (at < subDocs.length && subDocs[at]! < doc) at++;
        subAt[s] = at;
        const m = metrics[s]!;
        const counting = subFields[s]!.kind === 'kw';
        for (let j = at; j < subDocs.length && subDocs[j] === doc; j++) {
          if (counting) m.count[slot]!++;
          else m.add(slot, nums[j]!);
        }
      }
    }
  });

  const minDocCount = Math.max(spec.minDocCount, 1);
  let total = 0;
  const kept: number[] = [];
  for (let slot = 0; slot < keys.length; slot++) {
    total += counts[slot]!;
    if (counts[slot]! >= minDocCount) kept.push(slot);
  }
  const compareKey =
    field.kind === 'kw'
      ? (a: number, b: number) => compareCodePoints(keys[a] as string, keys[b] as string)
      : (a: number, b: number) => (keys[a] as number) - (keys[b] as number);
  const shown = topSlots(kept, spec.size, spec.order, counts, compareKey);
  const values = { type: field.type, column: field.kind } as FieldValues;
  const buckets: Bucket[] = shown.map((slot) => {
    const result = byName();
    subs.forEach((sub, s) => {
      const r = metrics[s]!.render(sub, subFields[s]!.type, slot);
      result[sub.name] = sub.meta === undefined ? r : { meta: sub.meta, ...(r as object) };
    });
    return { bg: '', docCount: counts[slot]!, head: termHead(values, keys[slot]!), subs: result };
  });
  run.countBuckets(buckets.length);
  const shownCount = buckets.reduce((sum, b) => sum + b.docCount, 0);
  return new Map([
    [
      '',
      {
        doc_count_error_upper_bound: 0,
        // The SQL path reads the total off the shown rows: none shown, none other.
        sum_other_doc_count: buckets.length === 0 ? 0 : total - shownCount,
        buckets: buckets.map(renderBucket),
      },
    ],
  ]);
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
