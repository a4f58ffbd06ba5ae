import {
  unsignedLongBoundKey,
  UnsignedLongQueryError,
  unsignedLongTermKey,
} from '../../mapping/unsigned-long';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import type { SqlParams } from './sql-params';

/**
 * term / terms / match on an `unsigned_long` field (ES `UnsignedLongFieldType.termQuery`): the values
 * no unsigned long equals (negative, fractional, past 2^64-1) match nothing; undefined when none is left.
 */
export function unsignedLongTermsCondition(
  params: SqlParams,
  values: (string | number | boolean)[],
): string | undefined {
  const keys = values
    .map((value) => queryValue(() => unsignedLongTermKey(value)))
    .filter((key) => key !== undefined);
  if (keys.length === 0) return undefined;
  return `kw = ANY(${params.add(keys)}::text[])`;
}

/**
 * range on an `unsigned_long` field (`UnsignedLongFieldType.rangeQuery`): bounds as exact decimals,
 * fractions rounded inwards, out-of-range bounds clamped; undefined when no value can match.
 */
export function unsignedLongRangeCondition(
  params: SqlParams,
  query: Pick<Extract<Query, { kind: 'range' }>, 'gt' | 'gte' | 'lt' | 'lte'>,
): string | undefined {
  const conditions = ['kw IS NOT NULL'];
  let low: string | undefined;
  let high: string | undefined;
  for (const [name, side, include] of [
    ['gt', 'lower', false],
    ['gte', 'lower', true],
    ['lt', 'upper', false],
    ['lte', 'upper', true],
  ] as const) {
    const value = query[name];
    if (value === undefined || value === null) continue;
    const key = queryValue(() => unsignedLongBoundKey(value, side, include));
    if (key === undefined) return undefined;
    if (side === 'lower') low = low === undefined || key > low ? key : low;
    else high = high === undefined || key < high ? key : high;
  }
  if (low !== undefined && high !== undefined && low > high) return undefined;
  if (low !== undefined) conditions.push(`kw >= ${params.add(low)}`);
  if (high !== undefined) conditions.push(`kw <= ${params.add(high)}`);
  return conditions.join(' AND ');
}

/** A value that is no number fails the query as ES's QueryShardException over its NumberFormatException. */
function queryValue<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UnsignedLongQueryError)) throw error;
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `failed to create query: ${error.message}`,
      caused_by: { type: error.type, reason: error.message },
    });
  }
}
