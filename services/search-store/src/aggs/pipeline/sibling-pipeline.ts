import { formatDecimal } from './decimal-format';
import type { PipelineSpec } from './pipeline-types';

/** One bucket's value for a sibling pipeline, with the key max_bucket/min_bucket report. */
export interface KeyedValue {
  key: string;
  value: number;
}

function withFormat(
  format: string | undefined,
  out: Record<string, unknown>,
  names: string[],
): Record<string, unknown> {
  if (format === undefined) return out;
  for (const name of names) {
    const v = out[name];
    if (typeof v === 'number') out[`${name}_as_string`] = formatDecimal(format, v);
  }
  return out;
}

/**
 * avg/max/min/sum/stats/extended_stats_bucket over the bucket values (gaps already left out), in
 * Elasticsearch's wire shapes (InternalSimpleValue, InternalBucketMetricValue, InternalStatsBucket…).
 */
export function siblingResult(spec: PipelineSpec, values: KeyedValue[]): Record<string, unknown> {
  const nums = values.map((v) => v.value);
  const count = nums.length;
  const sum = nums.reduce((a, b) => a + b, 0);
  const min = count > 0 ? Math.min(...nums) : null;
  const max = count > 0 ? Math.max(...nums) : null;
  const avg = count > 0 ? sum / count : null;
  const { format } = spec;
  switch (spec.kind) {
    case 'avg_bucket':
      return withFormat(format, { value: avg }, ['value']);
    case 'sum_bucket':
      return withFormat(format, { value: sum }, ['value']);
    case 'max_bucket':
    case 'min_bucket': {
      const best = spec.kind === 'max_bucket' ? max : min;
      const out: Record<string, unknown> = { value: best };
      if (format !== undefined && best !== null) out.value_as_string = formatDecimal(format, best);
      out.keys = best === null ? [] : values.filter((v) => v.value === best).map((v) => v.key);
      return out;
    }
    case 'stats_bucket':
      return withFormat(format, { count, min, max, avg, sum }, count > 0 ? ['min', 'max', 'avg', 'sum'] : []);
    default: {
      const sumOfSquares = nums.reduce((a, b) => a + b * b, 0);
      const variance = count > 0 ? Math.max(0, sumOfSquares / count - (avg as number) ** 2) : null;
      const varianceSampling =
        count > 1 ? Math.max(0, (sumOfSquares - (sum * sum) / count) / (count - 1)) : null;
      const std = variance === null ? null : Math.sqrt(variance);
      const stdSampling = varianceSampling === null ? null : Math.sqrt(varianceSampling);
      const bound = (s: number | null, sign: number): number | null =>
        avg === null || s === null ? null : avg + sign * spec.sigma * s;
      const out: Record<string, unknown> = {
        count,
        min,
        max,
        avg,
        sum,
        sum_of_squares: count > 0 ? sumOfSquares : null,
        variance,
        variance_population: variance,
        variance_sampling: varianceSampling,
        std_deviation: std,
        std_deviation_population: std,
        std_deviation_sampling: stdSampling,
        std_deviation_bounds: {
          upper: bound(std, 1),
          lower: bound(std, -1),
          upper_population: bound(std, 1),
          lower_population: bound(std, -1),
          upper_sampling: bound(stdSampling, 1),
          lower_sampling: bound(stdSampling, -1),
        },
      };
      return withFormat(format, out, count > 0 ? ['min', 'max', 'avg', 'sum'] : []);
    }
  }
}
