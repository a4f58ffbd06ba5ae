import { DEFAULT_DATE_FORMAT } from '../../index/date-value';
import { resolveDateMath } from './date-math';
import { ShardQueryError } from '../shard-query-error';

/**
 * A term or range value as the number doc values hold: dates through date math (epoch ms), booleans as
 * 1/0, numbers as given. Errors are Elasticsearch's query_shard_exception texts. Shared by indexed
 * fields and runtime fields, which compare against the same kind of number.
 */
export function parseQueryNumber(
  type: string,
  value: string | number | boolean,
  options: { now: number; format?: string; roundUp?: boolean; timeZone?: string },
): number {
  if (type === 'date') {
    return resolveDateMath(typeof value === 'boolean' ? String(value) : value, {
      now: options.now,
      format: options.format ?? DEFAULT_DATE_FORMAT,
      roundUp: options.roundUp ?? false,
      timeZone: options.timeZone,
    });
  }
  if (type === 'boolean') {
    if (value === true || value === 'true') return 1;
    if (value === false || value === 'false') return 0;
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `Can't parse boolean value [${String(value)}], expected [true] or [false]`,
    });
  }
  const n = typeof value === 'number' ? value : Number(value);
  if (
    typeof value === 'boolean' ||
    !Number.isFinite(n) ||
    (typeof value === 'string' && value.trim() === '')
  ) {
    throw new ShardQueryError({
      type: 'query_shard_exception',
      reason: `failed to create query: For input string: "${String(value)}"`,
    });
  }
  return n;
}
