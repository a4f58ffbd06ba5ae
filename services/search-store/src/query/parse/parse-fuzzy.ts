import { EsError } from '@acme/common';
import type { MatchFuzziness, Query } from '../query-ast';
import { parseFuzziness } from './parse-fuzziness';
import {
  boolParam,
  checkParams,
  floatParam,
  intParam,
  isObject,
  parsingError,
  singleFieldOf,
  textParam,
  type Json,
} from './parse-term-level-params';

/**
 * ES FuzzyQueryBuilder.fromXContent: `{fuzzy: {field: "value"}}` or `{fuzzy: {field: {value,
 * fuzziness (AUTO), prefix_length (0), max_expansions (50), transpositions (true), rewrite, boost,
 * _name}}}`. Bad fuzziness is Fuzziness.fromString's illegal_argument_exception.
 */
const FUZZY_PARAMS = [
  'value',
  'fuzziness',
  'prefix_length',
  'max_expansions',
  'transpositions',
  'rewrite',
  'boost',
  '_name',
];

export const DEFAULT_MAX_EXPANSIONS = 50;

export function parseFuzzy(value: unknown, parent: Json, name: string): Query {
  const { field, spec, container } = singleFieldOf(value, parent, name);
  const base = {
    kind: 'fuzzy' as const,
    field,
    fuzziness: 'AUTO',
    prefixLength: 0,
    maxExpansions: DEFAULT_MAX_EXPANSIONS,
    transpositions: true,
    boost: 1,
  };
  if (!isObject(spec)) {
    if (spec === null || spec === undefined || Array.isArray(spec))
      throw new EsError('illegal_argument_exception', 'query value cannot be null');
    return { ...base, value: textParam(container, field, name) };
  }
  checkParams(spec, FUZZY_PARAMS, name);
  if (spec.value === undefined || spec.value === null)
    throw new EsError('illegal_argument_exception', 'query value cannot be null');
  const query: Extract<Query, { kind: 'fuzzy' }> = {
    ...base,
    value: textParam(spec, 'value', name),
    fuzziness: spec.fuzziness === undefined ? base.fuzziness : parseFuzziness(spec.fuzziness),
    prefixLength: intParam(spec, 'prefix_length', name, 0),
    maxExpansions: intParam(spec, 'max_expansions', name, DEFAULT_MAX_EXPANSIONS),
    transpositions: boolParam(spec, 'transpositions', name, true),
    boost: floatParam(spec, 'boost', name, 1),
  };
  if (spec.rewrite !== undefined && spec.rewrite !== null) query.rewrite = textParam(spec, 'rewrite', name);
  if (field === '') throw parsingError('field name cannot be null or empty', container, field);
  return query;
}

/**
 * match / multi_match's `fuzziness`, `prefix_length`, `max_expansions`, `fuzzy_transpositions`,
 * `fuzzy_rewrite` (ES MatchQueryBuilder); nothing when there is no fuzziness, or when it is 0 with
 * the default rewrite (a FuzzyQuery of 0 edits is the TermQuery the plain match builds).
 */
export function matchFuzziness(spec: Json, name: string): { fuzzy?: MatchFuzziness } {
  if (spec.fuzziness === undefined || spec.fuzziness === null) return {};
  const fuzziness = parseFuzziness(spec.fuzziness);
  const rewrite =
    spec.fuzzy_rewrite === undefined || spec.fuzzy_rewrite === null
      ? undefined
      : textParam(spec, 'fuzzy_rewrite', name);
  if (fuzziness === '0' && rewrite === undefined) return {};
  const fuzzy: MatchFuzziness = {
    fuzziness,
    prefixLength: intParam(spec, 'prefix_length', name, 0),
    maxExpansions: intParam(spec, 'max_expansions', name, DEFAULT_MAX_EXPANSIONS),
    transpositions: boolParam(spec, 'fuzzy_transpositions', name, true),
  };
  if (rewrite !== undefined) fuzzy.rewrite = rewrite;
  return { fuzzy };
}
