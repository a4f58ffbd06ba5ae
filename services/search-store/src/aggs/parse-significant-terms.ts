import { EsError } from '@acme/common';
import type { SignificantTermsSpec } from './agg-types';
import { parseIncludeExclude } from './include-exclude';
import { numberField } from './parse-rare-terms';
import { HEURISTIC_NAMES, type SignificanceHeuristic } from './significance-heuristics';

const KEYS = new Set([
  'field',
  'missing',
  'size',
  'shard_size',
  'min_doc_count',
  'shard_min_doc_count',
  'background_filter',
  'include',
  'exclude',
  'execution_hint',
  'value_type',
  'format',
  ...HEURISTIC_NAMES,
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function flag(name: string, options: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const value = options[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean' && value !== 'true' && value !== 'false')
    throw new EsError('x_content_parse_exception', `[${name}] failed to parse field [${key}]`);
  return value === true || value === 'true';
}

function parseHeuristic(name: string, options: unknown): SignificanceHeuristic {
  if (!isObject(options))
    throw new EsError('x_content_parse_exception', `[significant_terms] failed to parse field [${name}]`);
  const allowed =
    name === 'mutual_information' || name === 'chi_square'
      ? ['include_negatives', 'background_is_superset']
      : name === 'gnd'
        ? ['background_is_superset']
        : [];
  for (const key of Object.keys(options))
    if (!allowed.includes(key))
      throw new EsError('x_content_parse_exception', `[${name}] unknown field [${key}]`);
  if (name === 'mutual_information' || name === 'chi_square')
    return {
      kind: name,
      includeNegatives: flag(name, options, 'include_negatives', false),
      backgroundIsSuperset: flag(name, options, 'background_is_superset', true),
    };
  if (name === 'gnd')
    return { kind: 'gnd', backgroundIsSuperset: flag(name, options, 'background_is_superset', true) };
  return { kind: name as 'jlh' | 'percentage' };
}

/**
 * significant_terms (ES SignificantTermsAggregationBuilder): size 10, min_doc_count 3,
 * shard_min_doc_count 0, one heuristic (JLH by default), an optional background_filter query.
 */
export function parseSignificantTerms(
  name: string,
  spec: Record<string, unknown>,
  field: string,
  aggType: 'significant_terms' | 'significant_text' = 'significant_terms',
): SignificantTermsSpec {
  let heuristic: SignificanceHeuristic | undefined;
  for (const key of Object.keys(spec)) {
    if (key === 'script_heuristic')
      throw new EsError('illegal_argument_exception', '[script_heuristic] is not supported by search-store');
    const textOnly = key === 'filter_duplicate_text' || key === 'source_fields';
    if (!KEYS.has(key) && !(textOnly && aggType === 'significant_text'))
      throw new EsError('x_content_parse_exception', `[${aggType}] unknown field [${key}]`);
    if ((HEURISTIC_NAMES as readonly string[]).includes(key)) {
      if (heuristic)
        throw new EsError('x_content_parse_exception', `[significant_terms] failed to parse field [${key}]`);
      heuristic = parseHeuristic(key, spec[key]);
    }
  }
  const size = numberField('significant_terms', spec, 'size', true) ?? 10;
  if (size <= 0)
    throw new EsError(
      'illegal_argument_exception',
      `[size] must be greater than 0. Found [${size}] in [${name}]`,
    );
  const shardSize = numberField('significant_terms', spec, 'shard_size', true);
  if (shardSize !== undefined && shardSize <= 0)
    throw new EsError(
      'illegal_argument_exception',
      `[shardSize] must be greater than 0. Found [${shardSize}] in [${name}]`,
    );
  const minDocCount = numberField('significant_terms', spec, 'min_doc_count', true) ?? 3;
  if (minDocCount < 0)
    throw new EsError(
      'illegal_argument_exception',
      `[minDocCount] must be greater than or equal to 0. Found [${minDocCount}] in [${name}]`,
    );
  const shardMinDocCount = numberField('significant_terms', spec, 'shard_min_doc_count', true) ?? 0;
  if (shardMinDocCount < 0)
    throw new EsError(
      'illegal_argument_exception',
      `[shardMinDocCount] must be greater than or equal to 0. Found [${shardMinDocCount}] in [${name}]`,
    );
  if (spec.background_filter !== undefined && !isObject(spec.background_filter))
    throw new EsError(
      'x_content_parse_exception',
      '[significant_terms] failed to parse field [background_filter]',
    );
  return {
    field,
    missing: spec.missing,
    size,
    shardSize,
    minDocCount,
    shardMinDocCount,
    heuristic: heuristic ?? { kind: 'jlh' },
    backgroundFilter: spec.background_filter,
    includeExclude: parseIncludeExclude('significant_terms', spec),
  };
}
