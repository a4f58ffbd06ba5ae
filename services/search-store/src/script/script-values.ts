import { SLOT_BYTES, type AllocationBudget } from './allocation-budget';
import { ScriptError } from './script-error';

/**
 * Runtime values of the script language. Integers (Java int/long) are bigint so that division
 * truncates and long arithmetic is exact; doubles are numbers. Maps are JS Maps, never plain objects,
 * so no key ("__proto__", "constructor") can reach a prototype.
 */
export type Value =
  | null
  | boolean
  | string
  | bigint
  | number
  | Value[]
  | ScriptMap
  | DocMap
  | DocValues
  | DateValue
  | StaticType;

export type ScriptMap = Map<Value, Value>;

export type DocValueType = 'long' | 'double' | 'keyword' | 'boolean' | 'date';

/** One field's doc values as a script sees them (`doc['f']`): always a list, sorted. */
export class DocValues {
  constructor(
    readonly field: string,
    readonly type: DocValueType,
    readonly values: Value[],
  ) {}
}

/** `doc`: field name → DocValues; unknown fields fail as Painless does. */
export class DocMap {
  constructor(readonly lookup: (field: string) => DocValues | undefined) {}
}

/** A date doc value (Painless exposes a ZonedDateTime in UTC). */
export class DateValue {
  constructor(readonly millis: number) {}
}

/** A class whose static members scripts may use: Math, Integer, Long, Double, String, Boolean. */
export class StaticType {
  constructor(readonly name: string) {}
}

export const STATIC_TYPES = new Set(['Math', 'Integer', 'Long', 'Double', 'Float', 'String', 'Boolean']);

/** How Painless names the type of a value in error messages. */
export function typeOfValue(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'bigint') return 'java.lang.Long';
  if (typeof v === 'number') return 'java.lang.Double';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  if (v instanceof Map) return 'java.util.HashMap';
  if (v instanceof DocValues) return `org.elasticsearch.index.fielddata.ScriptDocValues`;
  if (v instanceof DocMap) return 'org.elasticsearch.search.lookup.LeafDocLookup';
  if (v instanceof DateValue) return 'java.time.ZonedDateTime';
  return `java.lang.Class<${v.name}>`;
}

export interface ConvertLimits {
  maxDepth: number;
  /** toJson: each element and entry it makes is charged here (the run's budget, continued). */
  budget?: AllocationBudget;
  /** toJson: the most bytes the result's JSON text may take; past it, JsonTooLarge. */
  maxJsonBytes?: number;
}

/** toJson stopped: the JSON text of the value would be longer than `limit` bytes. */
export class JsonTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the JSON text is longer than [${limit}] bytes`);
    this.name = 'JsonTooLarge';
  }
}

export function fromJson(input: unknown, limits: ConvertLimits, depth = 0): Value {
  if (depth > limits.maxDepth)
    throw new ScriptError('runtime', 'illegal_argument_exception', 'value is nested too deeply', 0);
  if (input === null || input === undefined) return null;
  switch (typeof input) {
    case 'boolean':
    case 'string':
      return input;
    case 'number':
      return Number.isSafeInteger(input) ? BigInt(input) : input;
    case 'bigint':
      return input;
    case 'object':
      if (Array.isArray(input)) return input.map((item) => fromJson(item, limits, depth + 1));
      return new Map(
        Object.entries(input as Record<string, unknown>).map(
          ([k, v]) => [k, fromJson(v, limits, depth + 1)] as [Value, Value],
        ),
      );
    default:
      return null;
  }
}

/**
 * Script values → JSON. Object.fromEntries defines own properties, so "__proto__" stays a plain key.
 * The JSON text's size is counted as the value is converted, so a list holding one long string many
 * times, or a list of itself nested 40 deep (2^40 nodes), stops at `maxJsonBytes` instead of being
 * walked and serialised whole.
 */
export function toJson(v: Value, limits: ConvertLimits): unknown {
  let bytes = 0;
  const count = (n: number): void => {
    bytes += n;
    if (limits.maxJsonBytes !== undefined && bytes > limits.maxJsonBytes)
      throw new JsonTooLarge(limits.maxJsonBytes);
  };
  const list = (items: readonly Value[], depth: number): unknown[] => {
    limits.budget?.charge(items.length * SLOT_BYTES, 0);
    count(2 + Math.max(0, items.length - 1));
    return items.map((item) => convert(item, depth + 1));
  };
  const keyBound = { maxLength: limits.maxJsonBytes ?? Number.POSITIVE_INFINITY, at: 0 };
  const convert = (x: Value, depth: number): unknown => {
    if (depth > limits.maxDepth)
      throw new ScriptError('runtime', 'illegal_argument_exception', 'value is nested too deeply', 0);
    if (x === null || (typeof x === 'number' && !Number.isFinite(x))) {
      count(4);
      return null;
    }
    if (typeof x === 'boolean') {
      count(x ? 4 : 5);
      return x;
    }
    if (typeof x === 'string') {
      count(jsonStringBytes(x));
      return x;
    }
    if (typeof x === 'bigint' || typeof x === 'number') {
      const n = Number(x);
      count(String(n).length);
      return n;
    }
    if (Array.isArray(x)) return list(x, depth);
    if (x instanceof DocValues) return list(x.values, depth);
    if (x instanceof Map) {
      limits.budget?.charge(x.size * SLOT_BYTES, 0);
      count(2 + Math.max(0, x.size - 1));
      return Object.fromEntries(
        [...x].map(([k, item]) => {
          const key = javaString(k, keyBound);
          count(jsonStringBytes(key) + 1);
          return [key, convert(item, depth + 1)];
        }),
      );
    }
    if (x instanceof DateValue) {
      const text = new Date(x.millis).toISOString();
      count(text.length + 2);
      return text;
    }
    throw new ScriptError(
      'runtime',
      'illegal_argument_exception',
      `cannot convert [${typeOfValue(x)}] to JSON`,
      0,
    );
  };
  return convert(v, 0);
}

/** The UTF-8 bytes JSON.stringify writes for `s`, quotes and escapes included. */
function jsonStringBytes(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdfff)
      n += 6; // a lone surrogate is written as \uXXXX
    else n += 3;
  }
  return n;
}

/** Java's Double.toString: "1.0", "0.1", "1.0E21", "1.0E-5", "NaN", "Infinity". */
export function javaDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa = '0', exponent = '0'] = x.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}

/** Bounds a conversion: past `maxLength` code units it fails at `at` instead of building the rest. */
export interface StringBound {
  maxLength: number;
  at: number;
}

/**
 * String conversion as Java's String.valueOf / string concatenation does it. With a bound, the length
 * is counted while the pieces are made, so a list holding one long string many times fails early
 * instead of first joining a string of hundreds of megabytes.
 */
export function javaString(v: Value, bound?: StringBound): string {
  let length = 0;
  const piece = (s: string): string => {
    length += s.length;
    if (bound && length > bound.maxLength) {
      throw new ScriptError(
        'runtime',
        'painless_error',
        `string length exceeds the limit of [${bound.maxLength}] characters`,
        bound.at,
      );
    }
    return s;
  };
  const joined = <T>(open: string, items: readonly T[], render: (item: T) => string, close: string) => {
    let out = piece(open);
    items.forEach((item, i) => {
      if (i > 0) out += piece(', ');
      out += render(item);
    });
    return out + piece(close);
  };
  const visit = (x: Value, depth: number): string => {
    if (depth > 32) return piece('...');
    if (x === null) return piece('null');
    if (typeof x === 'string') return piece(x);
    if (typeof x === 'boolean' || typeof x === 'bigint') return piece(String(x));
    if (typeof x === 'number') return piece(javaDouble(x));
    if (Array.isArray(x)) return joined('[', x, (item) => visit(item, depth + 1), ']');
    if (x instanceof Map)
      return joined(
        '{',
        [...x],
        ([k, item]) => `${visit(k, depth + 1)}${piece('=')}${visit(item, depth + 1)}`,
        '}',
      );
    if (x instanceof DocValues) return joined('[', x.values, (item) => visit(item, depth + 1), ']');
    if (x instanceof DateValue) return piece(new Date(x.millis).toISOString().replace('.000Z', 'Z'));
    if (x instanceof DocMap) return piece('doc');
    return piece(`class ${x.name}`);
  };
  return visit(v, 0);
}

export function isNumeric(v: Value): v is bigint | number {
  return typeof v === 'bigint' || typeof v === 'number';
}

/**
 * Painless `==`: equals() for objects, numeric comparison across int/long/double. `onNode` is called for
 * every list and map compared: the interpreter charges each as a step, so comparing two lists built by
 * doubling (`a = [a, a]` forty times: 2^40 nodes, few of them distinct) ends at the step limit.
 */
export function valueEquals(a: Value, b: Value, onNode?: () => void): boolean {
  const equal = (x: Value, y: Value, depth: number): boolean => {
    if (depth > 64) return false;
    if (isNumeric(x) && isNumeric(y)) return typeof x === typeof y ? x === y : Number(x) === Number(y);
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return x === y;
    if (x === y) return true;
    if (Array.isArray(x) && Array.isArray(y)) {
      onNode?.();
      return x.length === y.length && x.every((item, i) => equal(item, y[i] as Value, depth + 1));
    }
    if (x instanceof Map && y instanceof Map) {
      onNode?.();
      if (x.size !== y.size) return false;
      for (const [k, item] of x) if (!y.has(k) || !equal(item, y.get(k) as Value, depth + 1)) return false;
      return true;
    }
    if (x instanceof DateValue && y instanceof DateValue) return x.millis === y.millis;
    return false;
  };
  return equal(a, b, 0);
}
