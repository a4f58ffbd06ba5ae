import type { GapPolicy } from './pipeline-types';

/**
 * Elasticsearch's BucketHelpers.resolveBucketValue: a bucket is a gap when it has no documents or its
 * value is missing (null, NaN, infinite). skip → NaN (the caller leaves the bucket out), insert_zeros →
 * 0, keep_values → the value when it is a real number, else NaN.
 */
export function gapValue(
  value: number | null,
  docCount: unknown,
  policy: GapPolicy,
  isCount = false,
): number {
  const real = value !== null && Number.isFinite(value);
  // A `_count` of 0 is a value, not a gap (Elasticsearch's isDocCountProperty).
  if (real && (docCount !== 0 || isCount)) return value;
  switch (policy) {
    case 'insert_zeros':
      return 0;
    case 'keep_values':
      return real ? value : NaN;
    default:
      return NaN;
  }
}
