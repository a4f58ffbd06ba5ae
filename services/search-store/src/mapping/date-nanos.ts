import { parseDate } from './parse-date';

/**
 * `date_nanos` values (ES "Date nanoseconds field type"): nanoseconds since the epoch as a BigInt, from
 * 1970-01-01 to 2262-04-11T23:47:16.854775807Z (a Java long), exact to the nanosecond. Doc values
 * hold them as 19 zero-padded digits in the `kw` column (byte order = time order); aggregations see
 * milliseconds, as ES's date_nanos buckets do.
 */
export const DEFAULT_DATE_NANOS_FORMAT = 'strict_date_optional_time_nanos||epoch_millis';
const MAX_NANOS = 2n ** 63n - 1n;
const NANOS_PER_MS = 1_000_000n;

export function dateNanosKey(nanos: bigint): string {
  return nanos.toString().padStart(19, '0');
}

/** Java's `Instant.toString`: seconds always, then the fraction in groups of three digits. */
export function instantString(nanos: bigint): string {
  const perSecond = 1_000_000_000n;
  let seconds = nanos / perSecond;
  let nanoOfSecond = nanos % perSecond;
  if (nanoOfSecond < 0n) {
    nanoOfSecond += perSecond;
    seconds -= 1n;
  }
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  if (nanoOfSecond === 0n) return `${base}Z`;
  return `${base}.${String(nanoOfSecond)
    .padStart(9, '0')
    .replace(/(000)+$/, '')}Z`;
}

/** The nanoseconds below the millisecond a date text states: an ISO time's fraction or epoch_millis'. */
function subMillisecondNanos(text: string): bigint {
  const epoch = /^\d+\.(\d+)$/.exec(text);
  if (epoch) return BigInt(epoch[1]!.slice(0, 6).padEnd(6, '0'));
  const iso = /[T ]\d{1,2}:\d{1,2}:\d{1,2}[.,](\d{1,9})(?:Z|[+-]|$)/.exec(text);
  if (!iso) return 0n;
  return BigInt(iso[1]!.padEnd(9, '0').slice(3));
}

export type DateNanosParse =
  { ok: true; nanos: bigint } | { ok: false; kind: 'format' } | { ok: false; kind: 'range'; reason: string };

/**
 * A document value (DateFieldMapper with Resolution.NANOSECONDS): the format's milliseconds plus the
 * text's sub-millisecond digits, refused before the epoch or past a Java long of nanoseconds.
 */
export function parseDateNanos(value: unknown, format: string): DateNanosParse {
  if (typeof value !== 'string' && typeof value !== 'number') return { ok: false, kind: 'format' };
  if (typeof value === 'number' && !Number.isFinite(value)) return { ok: false, kind: 'format' };
  const ms = parseDate(value, format);
  if (ms === undefined) return { ok: false, kind: 'format' };
  const nanos = BigInt(ms) * NANOS_PER_MS + (typeof value === 'string' ? subMillisecondNanos(value) : 0n);
  return checkNanosRange(nanos);
}

/** ES `DateUtils.toLong`: the messages for instants a long of nanoseconds cannot hold. */
export function checkNanosRange(nanos: bigint): DateNanosParse {
  if (nanos < 0n) {
    return {
      ok: false,
      kind: 'range',
      reason: `date[${instantString(nanos)}] is before the epoch in 1970 and cannot be stored in nanosecond resolution`,
    };
  }
  if (nanos > MAX_NANOS) {
    return {
      ok: false,
      kind: 'range',
      reason: `date[${instantString(nanos)}] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution`,
    };
  }
  return { ok: true, nanos };
}

/**
 * The date as `strict_date_optional_time_nanos` prints it (`fields`): the fraction with three to nine
 * digits, trailing zeros past the millisecond dropped (DateFormatters' appendFraction(3, 9)).
 */
export function formatDateNanos(nanos: bigint): string {
  const ms = nanos / NANOS_PER_MS;
  const iso = new Date(Number(ms)).toISOString(); // …ss.SSSZ
  const subMs = String(nanos % NANOS_PER_MS)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${iso.slice(0, -1)}${subMs}Z`;
}
