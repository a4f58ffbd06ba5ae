import { EsError } from '@acme/common';
import type { PercentilesSpec } from './agg-types';

export const DEFAULT_PERCENTS = [1, 5, 25, 50, 75, 95, 99];
/** Percents one aggregation may ask for (Elasticsearch has no limit). */
export const MAX_PERCENTS = 1_000;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Parses `percentiles` (ES PercentilesAggregationBuilder): field, missing, percents, keyed, tdigest. */
export function parsePercentiles(
  name: string,
  spec: Record<string, unknown>,
  field: string,
): PercentilesSpec {
  let percents = DEFAULT_PERCENTS;
  if (Object.hasOwn(spec, 'percents')) {
    const p = spec.percents;
    if (p === null) throw new EsError('illegal_argument_exception', `[percents] must not be null: [${name}]`);
    if (!Array.isArray(p))
      throw new EsError('x_content_parse_exception', '[percentiles] failed to parse field [percents]');
    if (p.length === 0)
      throw new EsError('illegal_argument_exception', `[percents] must not be empty: [${name}]`);
    if (p.length > MAX_PERCENTS)
      throw new EsError(
        'illegal_argument_exception',
        `[percents] of [${name}] holds more than [${MAX_PERCENTS}] values`,
      );
    percents = p.map((v) => {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n))
        throw new EsError('x_content_parse_exception', '[percentiles] failed to parse field [percents]');
      if (n < 0 || n > 100)
        throw new EsError('illegal_argument_exception', `percent must be in [0,100], got [${javaDouble(n)}]`);
      return n;
    });
    percents = [...new Set(percents)].sort((a, b) => a - b);
  }
  let compression = 100;
  if (spec.tdigest !== undefined) {
    if (!isObject(spec.tdigest))
      throw new EsError('x_content_parse_exception', '[percentiles] failed to parse field [tdigest]');
    const c = spec.tdigest.compression;
    if (c !== undefined) {
      if (typeof c !== 'number')
        throw new EsError('x_content_parse_exception', '[tdigest] failed to parse field [compression]');
      if (c < 0)
        throw new EsError(
          'illegal_argument_exception',
          `[compression] must be greater than or equal to 0. Found [${javaDouble(c)}] in [${name}]`,
        );
      compression = c;
    }
  }
  if (spec.hdr !== undefined)
    throw new EsError('illegal_argument_exception', `[hdr] percentiles are not supported in [${name}]`);
  return { field, missing: spec.missing, percents, keyed: spec.keyed !== false, compression };
}

/** Java's Double.toString for the wire keys ("50.0", "99.9"). */
export function javaDouble(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}
