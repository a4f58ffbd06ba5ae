import { ipKey, ipTermRange, IpQueryValueError, notAnIp, stepIpKey } from '../../mapping/ip-value';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import type { SqlParams } from './sql-params';

/**
 * term / terms / match on an `ip` field (ES `IpFieldType.termQuery`/`termsQuery`): each value is an
 * address or a CIDR block, a range of doc-value keys (mapping/ip-value.ts); the condition on `kw`.
 */
export function ipTermsCondition(params: SqlParams, values: (string | number | boolean)[]): string {
  const exact: string[] = [];
  const lows: string[] = [];
  const highs: string[] = [];
  for (const value of values) {
    const { lo, hi } = queryValue(() => ipTermRange(String(value)));
    if (lo === hi) exact.push(lo);
    else {
      lows.push(lo);
      highs.push(hi);
    }
  }
  const parts: string[] = [];
  if (exact.length > 0) parts.push(`kw = ANY(${params.add(exact)}::text[])`);
  if (lows.length > 0) {
    parts.push(
      `EXISTS (SELECT 1 FROM unnest(${params.add(lows)}::text[], ${params.add(highs)}::text[]) AS r(lo, hi) WHERE kw >= r.lo AND kw <= r.hi)`,
    );
  }
  return `kw IS NOT NULL AND (${parts.join(' OR ')})`;
}

/**
 * range on an `ip` field (ES `IpFieldType.rangeQuery`): bounds are single addresses (no CIDR), an
 * exclusive bound steps to the next address; a range that cannot hold an address matches nothing.
 */
export function ipRangeCondition(
  params: SqlParams,
  query: Pick<Extract<Query, { kind: 'range' }>, 'gt' | 'gte' | 'lt' | 'lte'>,
): string | undefined {
  const conditions = ['kw IS NOT NULL'];
  const bound = (value: unknown, step: 0 | 1 | -1): string | undefined => {
    const text = String(value);
    const key = queryValue(() => {
      const parsed = ipKey(text);
      if (parsed === undefined) throw new IpQueryValueError('illegal_argument_exception', notAnIp(text));
      return parsed;
    });
    return step === 0 ? key : stepIpKey(key, step);
  };
  for (const [name, op, step] of [
    ['gt', '>=', 1],
    ['gte', '>=', 0],
    ['lt', '<=', -1],
    ['lte', '<=', 0],
  ] as const) {
    const value = query[name];
    if (value === undefined || value === null) continue;
    const key = bound(value, step);
    if (key === undefined) return undefined;
    conditions.push(`kw ${op} ${params.add(key)}`);
  }
  return conditions.join(' AND ');
}

/** A bad value fails the query as ES's QueryShardException "failed to create query" over its cause. */
function queryValue<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof IpQueryValueError)) throw error;
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `failed to create query: ${error.message}`,
      caused_by: { type: error.type, reason: error.message },
    });
  }
}
