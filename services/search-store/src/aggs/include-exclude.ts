import { EsError } from '@acme/common';
import { parseDate } from '../mapping/parse-date';
import { ipKey } from '../mapping/ip-value';
import { compileRegexp, DEFAULT_MAX_DETERMINIZED_STATES, type RegexpMatcher } from '../text/regexp-automaton';
import { REGEXP_FLAGS, RegexpSyntaxError } from '../text/regexp-syntax';

/**
 * ES IncludeExclude for rare_terms and significant_terms: `include`/`exclude` as a Lucene regexp
 * (string fields only; matched by the linear-time DFA of text/regexp-automaton.ts) or as arrays of
 * exact values (compared as the field's doc values: numbers, epoch millis, ip keys, 1/0 booleans).
 * `include: {partition, num_partitions}` is not implemented (docs/COVERAGE.md).
 */
export interface IncludeExclude {
  include?: RegexpMatcher | unknown[];
  exclude?: RegexpMatcher | unknown[];
}

function compile(pattern: string): RegexpMatcher {
  try {
    return compileRegexp(pattern, {
      flags: REGEXP_FLAGS.ALL,
      caseInsensitive: false,
      maxDeterminizedStates: DEFAULT_MAX_DETERMINIZED_STATES,
    });
  } catch (error) {
    const reason = error instanceof RegexpSyntaxError ? error.message : String(error);
    throw new EsError('illegal_argument_exception', reason);
  }
}

function side(aggType: string, key: string, value: unknown): RegexpMatcher | unknown[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return compile(value);
  if (Array.isArray(value) && value.every((v) => ['string', 'number', 'boolean'].includes(typeof v)))
    return value;
  if (key === 'include' && value !== null && typeof value === 'object')
    throw new EsError(
      'illegal_argument_exception',
      `[${aggType}] include partitions are not supported by search-store`,
    );
  throw new EsError('x_content_parse_exception', `[${aggType}] failed to parse field [${key}]`);
}

export function parseIncludeExclude(aggType: string, spec: Record<string, unknown>): IncludeExclude {
  return { include: side(aggType, 'include', spec.include), exclude: side(aggType, 'exclude', spec.exclude) };
}

/** A predicate over the stored keys (`kw` text or `num` value) of a field of `type`. */
export function includeExcludeFilter(
  aggName: string,
  ie: IncludeExclude,
  type: string | null,
): ((key: string | number) => boolean) | undefined {
  if (!ie.include && !ie.exclude) return undefined;
  const isRegexp = (s: unknown): s is RegexpMatcher => s !== undefined && !Array.isArray(s);
  if ((isRegexp(ie.include) || isRegexp(ie.exclude)) && type !== 'keyword' && type !== null)
    throw new EsError(
      'illegal_argument_exception',
      `Aggregation [${aggName}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses`,
    );
  const asKey = (v: unknown): string | number | undefined => {
    if (type === 'ip') return ipKey(String(v));
    if (type === 'keyword' || type === null) return String(v);
    if (type === 'boolean') return v === true || v === 'true' || v === 1 ? 1 : 0;
    if (type === 'date')
      return typeof v === 'number' ? v : parseDate(String(v), 'strict_date_optional_time||epoch_millis');
    return Number(v);
  };
  const setOf = (values: unknown[]) => new Set(values.map(asKey).filter((k) => k !== undefined));
  const matches = (s: RegexpMatcher | unknown[], key: string | number, set?: Set<unknown>) =>
    Array.isArray(s) ? set!.has(typeof key === 'string' ? key : Number(key)) : s.matches(String(key));
  const inc = Array.isArray(ie.include) ? setOf(ie.include) : undefined;
  const exc = Array.isArray(ie.exclude) ? setOf(ie.exclude) : undefined;
  return (key) =>
    (ie.include === undefined || matches(ie.include, key, inc)) &&
    (ie.exclude === undefined || !matches(ie.exclude, key, exc));
}
