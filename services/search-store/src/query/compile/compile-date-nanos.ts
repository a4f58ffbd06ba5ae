import { dateNanosKey } from '../../mapping/date-nanos';
import type { Query } from '../query-ast';
import { resolveDateMath } from '../parse/date-math';
import type { SqlParams } from './sql-params';

const MAX_NANOS = 2n ** 63n - 1n;
const NANOS_PER_MS = 1_000_000n;

interface BoundOptions {
  now: number;
  format: string;
  timeZone?: string;
}

/**
 * A date (or date math) in nanoseconds (ES DateFieldType with Resolution.NANOSECONDS): the
 * milliseconds of the date math plus the sub-millisecond digits a plain date states. Rounding up
 * (`lte`, `gt`, a term's upper end) reaches the last nanosecond of what was rounded or left out.
 */
function nanosOf(value: string | number, roundUp: boolean, options: BoundOptions): bigint {
  const down = resolveDateMath(value, { ...options, roundUp: false });
  const up = roundUp ? resolveDateMath(value, { ...options, roundUp: true }) : down;
  if (up !== down) return BigInt(up) * NANOS_PER_MS + (NANOS_PER_MS - 1n);
  return BigInt(down) * NANOS_PER_MS + (typeof value === 'string' ? subMillisecond(value) : 0n);
}

/** The digits past the millisecond in a plain date (no date math): an ISO fraction or epoch_millis'. */
function subMillisecond(text: string): bigint {
  if (text.startsWith('now') || text.includes('||')) return 0n;
  const epoch = /^\d+\.(\d+)$/.exec(text);
  if (epoch) return BigInt(epoch[1]!.slice(0, 6).padEnd(6, '0'));
  const iso = /[T ]\d{1,2}:\d{1,2}:\d{1,2}[.,](\d{1,9})(?:Z|[+-]|$)/.exec(text);
  return iso ? BigInt(iso[1]!.padEnd(9, '0').slice(3)) : 0n;
}

function clampedRange(lo: bigint, hi: bigint): [string, string] | undefined {
  const low = lo < 0n ? 0n : lo;
  const high = hi > MAX_NANOS ? MAX_NANOS : hi;
  return low > high ? undefined : [dateNanosKey(low), dateNanosKey(high)];
}

/** term / terms on a `date_nanos` field: each value is the range from its first to its last nanosecond. */
export function dateNanosTermsCondition(
  params: SqlParams,
  values: (string | number | boolean)[],
  options: BoundOptions,
): string | undefined {
  const lows: string[] = [];
  const highs: string[] = [];
  for (const value of values) {
    const v = typeof value === 'boolean' ? String(value) : value;
    const range = clampedRange(nanosOf(v, false, options), nanosOf(v, true, options));
    if (!range) continue;
    lows.push(range[0]);
    highs.push(range[1]);
  }
  if (lows.length === 0) return undefined;
  return `kw IS NOT NULL AND EXISTS (SELECT 1 FROM unnest(${params.add(lows)}::text[], ${params.add(highs)}::text[]) AS r(lo, hi) WHERE kw >= r.lo AND kw <= r.hi)`;
}

/** range on a `date_nanos` field, bounds to the nanosecond; undefined when nothing can match. */
export function dateNanosRangeCondition(
  params: SqlParams,
  query: Pick<Extract<Query, { kind: 'range' }>, 'gt' | 'gte' | 'lt' | 'lte'>,
  options: BoundOptions,
): string | undefined {
  let lo = 0n;
  let hi = MAX_NANOS;
  if (query.gt !== undefined) lo = max(lo, nanosOf(query.gt, true, options) + 1n);
  if (query.gte !== undefined) lo = max(lo, nanosOf(query.gte, false, options));
  if (query.lt !== undefined) hi = min(hi, nanosOf(query.lt, false, options) - 1n);
  if (query.lte !== undefined) hi = min(hi, nanosOf(query.lte, true, options));
  const range = clampedRange(lo, hi);
  if (!range) return undefined;
  return `kw IS NOT NULL AND kw >= ${params.add(range[0])} AND kw <= ${params.add(range[1])}`;
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
