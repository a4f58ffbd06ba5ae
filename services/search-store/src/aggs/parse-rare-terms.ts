import { EsError } from '@acme/common';
import type { RareTermsSpec } from './agg-types';
import { parseIncludeExclude } from './include-exclude';

const KEYS = new Set([
  'field',
  'missing',
  'max_doc_count',
  'precision',
  'include',
  'exclude',
  'value_type',
  'format',
]);

/** ObjectParser's wrapping of a setter's IllegalArgumentException. */
function failedField(aggType: string, key: string, reason: string): EsError {
  return new EsError('x_content_parse_exception', `[${aggType}] failed to parse field [${key}]`, {
    causedBy: { type: 'illegal_argument_exception', reason },
  });
}

export function numberField(
  aggType: string,
  spec: Record<string, unknown>,
  key: string,
  integer: boolean,
): number | undefined {
  const value = spec[key];
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new EsError('x_content_parse_exception', `[${aggType}] failed to parse field [${key}]`);
  return n;
}

/**
 * rare_terms (ES RareTermsAggregationBuilder): `max_doc_count` 1..100 (default 1), `precision` of
 * ES's cuckoo filters (≥ 0.00001, default 0.001; validated, and moot here since the counts are
 * exact), include/exclude, missing.
 */
export function parseRareTerms(name: string, spec: Record<string, unknown>, field: string): RareTermsSpec {
  for (const key of Object.keys(spec))
    if (!KEYS.has(key)) throw new EsError('x_content_parse_exception', `[rare_terms] unknown field [${key}]`);
  const maxDocCount = numberField('rare_terms', spec, 'max_doc_count', true) ?? 1;
  if (maxDocCount <= 0)
    throw failedField(
      'rare_terms',
      'max_doc_count',
      `[max_doc_count] must be greater than 0. Found [${maxDocCount}] in [${name}]`,
    );
  // The message as ES writes it (RareTermsAggregationBuilder.maxDocCount), spaces missing included.
  if (maxDocCount > 100)
    throw failedField('rare_terms', 'max_doc_count', `[max_doc_count] must be smallerthan 100in [${name}]`);
  const precision = numberField('rare_terms', spec, 'precision', false) ?? 0.001;
  if (precision < 0.00001)
    throw failedField('rare_terms', 'precision', '[precision] must be greater than 0.00001');
  return {
    field,
    missing: spec.missing,
    maxDocCount,
    precision,
    includeExclude: parseIncludeExclude('rare_terms', spec),
  };
}
