import { EsError } from '@acme/common';
import type { Query } from '../query-ast';
import { DEFAULT_MAX_DETERMINIZED_STATES } from '../../text/regexp-automaton';
import { REGEXP_FLAGS } from '../../text/regexp-syntax';
import {
  boolParam,
  checkParams,
  floatParam,
  intParam,
  isObject,
  singleFieldOf,
  textParam,
  type Json,
} from './parse-term-level-params';

/**
 * ES RegexpQueryBuilder.fromXContent: `{regexp: {field: "pattern"}}` or `{regexp: {field: {value,
 * flags ("ALL", "INTERSECTION|COMPLEMENT"…), flags_value, case_insensitive, max_determinized_states
 * (10000), rewrite, boost, _name}}}`. The pattern itself is parsed when the query runs (ES builds
 * the automaton in toQuery, so its syntax errors are shard failures).
 */
const REGEXP_PARAMS = [
  'value',
  'flags',
  'flags_value',
  'case_insensitive',
  'max_determinized_states',
  'rewrite',
  'boost',
  '_name',
];

export function parseRegexpQuery(value: unknown, parent: Json, name: string): Query {
  const { field, spec, container } = singleFieldOf(value, parent, name);
  const base = {
    kind: 'regexp' as const,
    field,
    flags: REGEXP_FLAGS.ALL,
    caseInsensitive: false,
    maxDeterminizedStates: DEFAULT_MAX_DETERMINIZED_STATES,
    boost: 1,
  };
  if (!isObject(spec)) {
    if (spec === null || spec === undefined || Array.isArray(spec))
      throw new EsError('illegal_argument_exception', 'value cannot be null');
    return { ...base, value: textParam(container, field, name) };
  }
  checkParams(spec, REGEXP_PARAMS, name);
  if (spec.value === undefined || spec.value === null)
    throw new EsError('illegal_argument_exception', 'value cannot be null');
  let flags: number = base.flags;
  if (spec.flags !== undefined && spec.flags !== null)
    flags = resolveRegexpFlags(textParam(spec, 'flags', name));
  if (spec.flags_value !== undefined) flags = intParam(spec, 'flags_value', name, REGEXP_FLAGS.ALL);
  const query: Extract<Query, { kind: 'regexp' }> = {
    ...base,
    value: textParam(spec, 'value', name),
    // ES masks the bits Lucene dropped (ALL was 0xffff before Lucene 9).
    flags: flags & REGEXP_FLAGS.ALL,
    caseInsensitive: boolParam(spec, 'case_insensitive', name, false),
    maxDeterminizedStates: intParam(spec, 'max_determinized_states', name, DEFAULT_MAX_DETERMINIZED_STATES),
    boost: floatParam(spec, 'boost', name, 1),
  };
  if (spec.rewrite !== undefined && spec.rewrite !== null) query.rewrite = textParam(spec, 'rewrite', name);
  return query;
}

/** ES RegexpFlag.resolveValue: `|`-separated names, any case; ALL wins; an empty string is ALL. */
export function resolveRegexpFlags(text: string): number {
  if (text === '') return REGEXP_FLAGS.ALL;
  let flags: number = REGEXP_FLAGS.NONE;
  for (const part of text.split('|')) {
    if (part === '') continue;
    const upper = part.toUpperCase();
    if (!Object.hasOwn(REGEXP_FLAGS, upper) || upper === 'AUTOMATON')
      throw new EsError('illegal_argument_exception', `Unknown regexp flag [${part}]`);
    if (upper === 'ALL') return REGEXP_FLAGS.ALL;
    flags |= REGEXP_FLAGS[upper as keyof typeof REGEXP_FLAGS];
  }
  return flags;
}
