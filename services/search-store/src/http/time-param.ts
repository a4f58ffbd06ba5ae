import { EsError } from '@acme/common';
import { stringParam } from './query-params';

const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ['nanos', 1e-6],
  ['micros', 1e-3],
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
]);

/**
 * A time parameter (`timeout=30s`) in milliseconds, as ES TimeValue#parseTimeValue reads it: a whole
 * number with one of its units, or `-1` / `0` alone. Anything else is the 400 ES answers.
 */
export function parseTimeParam(value: unknown, name: string, fallbackMs: number): number {
  const text = stringParam(value);
  if (text === undefined) return fallbackMs;
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '-1' || trimmed === '0') return Number(trimmed);
  const match = /^(\d+)\s*(nanos|micros|ms|s|m|h|d)$/.exec(trimmed);
  const unit = match ? UNIT_MS.get(match[2] ?? '') : undefined;
  if (!match || unit === undefined) {
    throw new EsError(
      'parse_exception',
      `failed to parse setting [${name}] with value [${text}] as a time value: unit is missing or unrecognized`,
    );
  }
  return Number(match[1]) * unit;
}
