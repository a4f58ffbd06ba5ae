import { EsError } from '@acme/common';

/** Java's Integer.MAX_VALUE: ES's TRACK_TOTAL_HITS_ACCURATE, the same as `true`. */
const ACCURATE = 2_147_483_647;

/**
 * `track_total_hits` as Elasticsearch 8 reads it (SearchSourceBuilder.trackTotalHitsUpTo and
 * RestSearchAction.checkRestTotalHits): unset is 10,000, or exact with `rest_total_hits_as_int`;
 * `true` and Integer.MAX_VALUE count exactly; `false` and -1 leave hits.total out (or print -1 with
 * `rest_total_hits_as_int`); another integer counts up to it (relation `gte` past it). Below -1 is a
 * 400, and so is a limit that is not exact with `rest_total_hits_as_int`, which has no relation to
 * print. `integer` parses the value (its error when it is neither a boolean nor an integer).
 */
export function parseTrackTotalHits(
  value: unknown,
  restTotalHitsAsInt: boolean,
  integer: (value: unknown) => number,
): number | boolean {
  if (value === undefined) return restTotalHitsAsInt ? true : 10_000;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  const n = integer(value);
  if (n < -1)
    throw new EsError(
      'illegal_argument_exception',
      `[track_total_hits] parameter must be positive or equals to -1, got ${n}`,
    );
  if (n === -1) return false;
  if (n >= ACCURATE) return true;
  if (restTotalHitsAsInt)
    throw new EsError(
      'illegal_argument_exception',
      `[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got ${n}`,
    );
  return n;
}
