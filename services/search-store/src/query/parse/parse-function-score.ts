import { EsError } from '@acme/common';
import { locationOf } from './json-locations';
import type { FunctionScoreQuery, Query } from '../query-ast';
import type {
  DecayShape,
  FieldValueModifier,
  FilterFunction,
  FunctionBoostMode,
  FunctionScoreMode,
  MultiValueMode,
  ScoreFunction,
} from '../function-score-ast';

/**
 * `function_score` → AST, with the errors of ES's FunctionScoreQueryBuilder.fromXContent and the score
 * function parsers (parsing_exception with line/col; an unknown enum value is Java's valueOf message).
 */
type Json = Record<string, unknown>;
type QueryParser = (body: unknown, parent?: Json, key?: string) => Query;

const NAME = 'function_score';
/** Float.MAX_VALUE: FunctionScoreQuery.DEFAULT_MAX_BOOST. */
export const DEFAULT_MAX_BOOST = 3.4028234663852886e38;
const MISPLACED = 'you can either define [functions] array or a single function, not both. ';
const SCORE_MODES = ['multiply', 'sum', 'avg', 'first', 'max', 'min'] as const;
const BOOST_MODES = ['multiply', 'replace', 'sum', 'avg', 'max', 'min'] as const;
const MODIFIERS = [
  'none',
  'log',
  'log1p',
  'log2p',
  'ln',
  'ln1p',
  'ln2p',
  'square',
  'sqrt',
  'reciprocal',
] as const;
const MULTI_VALUE_MODES = ['min', 'max', 'avg', 'sum', 'median'] as const;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parsingError(reason: string, parent?: object, key?: string): EsError {
  const at = parent && key !== undefined ? locationOf(parent, key) : undefined;
  return new EsError('parsing_exception', reason, { metadata: { line: at?.line ?? 1, col: at?.col ?? 1 } });
}

function tokenOf(value: unknown): string {
  if (isObject(value)) return 'START_OBJECT';
  if (Array.isArray(value)) return 'START_ARRAY';
  if (typeof value === 'string') return 'VALUE_STRING';
  if (typeof value === 'number') return 'VALUE_NUMBER';
  if (value === null) return 'VALUE_NULL';
  return 'VALUE_BOOLEAN';
}

/** XContentParser.floatValue(): a number or a numeric string, as float32. */
function floatOf(value: unknown, parent: Json, key: string, owner = NAME): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw parsingError(`[${owner}] failed to parse field [${key}]`, parent, key);
  }
  return Math.fround(n);
}

/** Java's Enum.valueOf on the upper-cased text: an unknown name is its IllegalArgumentException. */
function enumOf<T extends string>(value: unknown, allowed: readonly T[], javaClass: string): T {
  const text = String(value);
  const lower = text.toLowerCase() as T;
  if (typeof value === 'string' && allowed.includes(lower)) return lower;
  throw new EsError('illegal_argument_exception', `No enum constant ${javaClass}.${text.toUpperCase()}`);
}

/** Java's String.hashCode (RandomScoreFunctionBuilder.seed(String), the random_score salt). */
export function javaStringHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

export function parseFunctionScore(
  value: unknown,
  parent: Json,
  name: string,
  parseQuery: QueryParser,
): FunctionScoreQuery {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  let query: Query | undefined;
  let boost = 1;
  let scoreMode: FunctionScoreMode = 'multiply';
  let boostMode: FunctionBoostMode = 'multiply';
  let maxBoost = DEFAULT_MAX_BOOST;
  let minScore: number | undefined;
  let arrayFound = false;
  let single: string | undefined;
  const functions: FilterFunction<Query>[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (isObject(v)) {
      if (key === 'query') {
        query = parseQuery(v, value, key);
        continue;
      }
      if (single !== undefined) {
        throw parsingError(
          `failed to parse [${NAME}] query. already found function [${single}], now encountering [${key}]. use [functions] array if you want to define several functions.`,
          value,
          key,
        );
      }
      if (arrayFound) {
        throw parsingError(
          `failed to parse [${NAME}] query. [${MISPLACED}already found [functions] array, now encountering [${key}].]`,
          value,
          key,
        );
      }
      single = key;
      functions.push({ fn: parseScoreFunction(key, v, value) });
    } else if (Array.isArray(v)) {
      if (key !== 'functions')
        throw parsingError(`failed to parse [${NAME}] query. array [${key}] is not supported`, value, key);
      if (single !== undefined) {
        throw parsingError(
          `failed to parse [${NAME}] query. [${MISPLACED}already found [${single}], now encountering [functions].]`,
          value,
          key,
        );
      }
      arrayFound = true;
      for (const entry of v) functions.push(parseFunctionEntry(entry, value, parseQuery));
    } else if (key === 'score_mode') {
      scoreMode = enumOf(
        v,
        SCORE_MODES,
        'org.elasticsearch.common.lucene.search.function.FunctionScoreQuery.ScoreMode',
      );
    } else if (key === 'boost_mode') {
      boostMode = enumOf(v, BOOST_MODES, 'org.elasticsearch.common.lucene.search.function.CombineFunction');
    } else if (key === 'max_boost') {
      maxBoost = floatOf(v, value, key);
    } else if (key === 'boost') {
      boost = floatOf(v, value, key);
    } else if (key === 'min_score') {
      minScore = floatOf(v, value, key);
    } else if (key === '_name') {
      continue;
    } else {
      if (single !== undefined) {
        throw parsingError(
          `failed to parse [${NAME}] query. already found function [${single}], now encountering [${key}]. use [functions] array if you want to define several functions.`,
          value,
          key,
        );
      }
      if (arrayFound) {
        throw parsingError(
          `failed to parse [${NAME}] query. [${MISPLACED}already found [functions] array, now encountering [${key}].]`,
          value,
          key,
        );
      }
      if (key !== 'weight')
        throw parsingError(`failed to parse [${NAME}] query. field [${key}] is not supported`, value, key);
      single = key;
      functions.push({ fn: { kind: 'weight' }, weight: floatOf(v, value, key) });
    }
  }
  // FunctionScoreQueryBuilder.doToQuery: one function without a filter is scored alone (score mode first).
  if (functions.length === 1 && functions[0]!.filter === undefined) scoreMode = 'first';
  return {
    kind: 'function_score',
    query: query ?? { kind: 'match_all', boost: 1 },
    functions,
    scoreMode,
    boostMode,
    maxBoost,
    minScore,
    boost,
  };
}

function parseFunctionEntry(entry: unknown, parent: Json, parseQuery: QueryParser): FilterFunction<Query> {
  if (!isObject(entry)) {
    // ES formats this message with its arguments in this order.
    throw parsingError(
      `failed to parse [START_OBJECT]. malformed query, expected a [${tokenOf(entry)}] while parsing functions but got a [${NAME}] instead`,
      parent,
      'functions',
    );
  }
  let filter: Query | undefined;
  let fn: ScoreFunction | undefined;
  let fnName: string | undefined;
  let weight: number | undefined;
  for (const [key, v] of Object.entries(entry)) {
    if (isObject(v)) {
      if (key === 'filter') {
        filter = parseQuery(v, entry, key);
        continue;
      }
      if (fn !== undefined) {
        throw parsingError(
          `failed to parse function_score functions. already found [${fnName}], now encountering [${key}].`,
          entry,
          key,
        );
      }
      fn = parseScoreFunction(key, v, entry);
      fnName = key;
    } else if (key === 'weight') {
      weight = floatOf(v, entry, key);
    } else if (!Array.isArray(v)) {
      throw parsingError(`failed to parse [${NAME}] query. field [${key}] is not supported`, entry, key);
    }
  }
  if (fn === undefined && weight === undefined) {
    throw parsingError(
      `failed to parse [${NAME}] query. an entry in functions list is missing a function.`,
      parent,
      'functions',
    );
  }
  // A match_all filter is no filter (doToQuery does not wrap it).
  const everything = filter === undefined || (filter.kind === 'match_all' && filter._name === undefined);
  return {
    ...(everything ? {} : { filter }),
    fn: fn ?? { kind: 'weight' },
    ...(weight === undefined ? {} : { weight }),
  };
}

function parseScoreFunction(name: string, spec: Json, parent: Json): ScoreFunction {
  switch (name) {
    case 'field_value_factor':
      return parseFieldValueFactor(spec);
    case 'random_score':
      return parseRandomScore(spec);
    case 'script_score':
      return parseScriptFunction(spec);
    case 'gauss':
    case 'exp':
    case 'linear':
      return parseDecay(name, spec);
    default:
      // AbstractQueryBuilder turns the registry's NamedObjectNotFoundException into "unknown query",
      // naming function_score and suggesting among the score functions.
      throw parsingError(
        `unknown query [${NAME}] did you mean any of [random_score, script_score]?`,
        parent,
        name,
      ).with({ causedBy: { type: 'named_object_not_found_exception', reason: unknownField(parent, name) } });
  }
}

function unknownField(parent: Json, name: string): string {
  const at = locationOf(parent, name);
  return `[${at?.line ?? 1}:${at?.col ?? 1}] unknown field [${name}]`;
}

function parseFieldValueFactor(spec: Json): ScoreFunction {
  let field: string | undefined;
  let factor = 1;
  let modifier: FieldValueModifier = 'none';
  let missing: number | undefined;
  for (const [key, v] of Object.entries(spec)) {
    if (key === 'field' && typeof v === 'string') field = v;
    else if (key === 'factor') factor = floatOf(v, spec, key, 'field_value_factor');
    else if (key === 'modifier')
      modifier = enumOf(
        v,
        MODIFIERS,
        'org.elasticsearch.common.lucene.search.function.FieldValueFactorFunction.Modifier',
      );
    else if (key === 'missing') {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n))
        throw parsingError('[field_value_factor] failed to parse field [missing]', spec, key);
      missing = n;
    } else throw parsingError(`field_value_factor query does not support [${key}]`, spec, key);
  }
  if (field === undefined)
    throw parsingError("[field_value_factor] required field 'field' missing", spec, Object.keys(spec)[0]);
  return {
    kind: 'field_value_factor',
    field,
    factor,
    modifier,
    ...(missing === undefined ? {} : { missing }),
  };
}

function parseRandomScore(spec: Json): ScoreFunction {
  let seed: number | undefined;
  let field: string | undefined;
  for (const [key, v] of Object.entries(spec)) {
    if (key === 'seed') {
      if (typeof v === 'number' && Number.isInteger(v) && Number.isSafeInteger(v)) {
        // An int is itself; a long is Long.hashCode: (int) (v ^ (v >>> 32)).
        if (v >= -2147483648 && v <= 2147483647) seed = v;
        else {
          const big = BigInt.asUintN(64, BigInt(v));
          seed = Number(BigInt.asIntN(32, big ^ (big >> 32n)));
        }
      } else if (typeof v === 'string') seed = javaStringHash(v);
      else
        throw parsingError(
          `random_score seed must be an int, long or string, not '${tokenOf(v)}'`,
          spec,
          key,
        );
    } else if (key === 'field' && (typeof v === 'string' || typeof v === 'number')) field = String(v);
    else throw parsingError(`random_score query does not support [${key}]`, spec, key);
  }
  return {
    kind: 'random_score',
    ...(seed === undefined ? {} : { seed }),
    ...(field === undefined ? {} : { field }),
  };
}

function parseScriptFunction(spec: Json): ScoreFunction {
  for (const key of Object.keys(spec)) {
    if (key !== 'script') throw parsingError(`script_score query does not support [${key}]`, spec, key);
  }
  const script = spec.script;
  if (typeof script === 'string') return { kind: 'script_score', source: script, params: {} };
  if (!isObject(script) || typeof script.source !== 'string')
    throw parsingError("script_score requires 'script' field", spec, 'script');
  if (script.lang !== undefined && script.lang !== 'painless')
    throw new EsError('illegal_argument_exception', `script_lang not supported [${String(script.lang)}]`);
  const params = script.params ?? {};
  if (!isObject(params)) throw parsingError('[script] failed to parse field [params]', script, 'params');
  return { kind: 'script_score', source: script.source, params };
}

function parseDecay(shape: DecayShape, spec: Json): ScoreFunction {
  let field: string | undefined;
  let params: Json | undefined;
  let multiValueMode: MultiValueMode = 'min';
  for (const [key, v] of Object.entries(spec)) {
    if (isObject(v)) {
      field = key;
      params = v;
    } else if (key === 'multi_value_mode') {
      // MultiValueMode.fromString wraps valueOf's failure in its own message.
      const mode = typeof v === 'string' ? v.toLowerCase() : '';
      if (!(MULTI_VALUE_MODES as readonly string[]).includes(mode))
        throw new EsError('illegal_argument_exception', `Illegal sort mode: ${String(v)}`);
      multiValueMode = mode as MultiValueMode;
    } else throw parsingError('malformed score function score parameters.', spec, key);
  }
  if (field === undefined || params === undefined)
    throw parsingError('malformed score function score parameters.', spec, Object.keys(spec)[0]);
  return { kind: 'decay', shape, field, params, multiValueMode };
}
