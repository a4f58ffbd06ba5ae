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
}

/** JSON (params, _source) → script values: integral numbers become longs, objects become Maps. */
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

/** Script values → JSON. Object.fromEntries defines own properties, so "__proto__" stays a plain key. */
export function toJson(v: Value, limits: ConvertLimits, depth = 0): unknown {
  if (depth > limits.maxDepth)
    throw new ScriptError('runtime', 'illegal_argument_exception', 'value is nested too deeply', 0);
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map((item) => toJson(item, limits, depth + 1));
  if (v instanceof Map)
    return Object.fromEntries([...v].map(([k, item]) => [javaString(k), toJson(item, limits, depth + 1)]));
  if (v instanceof DateValue) return new Date(v.millis).toISOString();
  if (v instanceof DocValues) return v.values.map((item) => toJson(item, limits, depth + 1));
  throw new ScriptError(
    'runtime',
    'illegal_argument_exception',
    `cannot convert [${typeOfValue(v)}] to JSON`,
    0,
  );
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

/** String conversion as Java's String.valueOf / string concatenation does it. */
export function javaString(v: Value, depth = 0): string {
  if (depth > 32) return '...';
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'number') return javaDouble(v);
  if (Array.isArray(v)) return `[${v.map((item) => javaString(item, depth + 1)).join(', ')}]`;
  if (v instanceof Map)
    return `{${[...v].map(([k, item]) => `${javaString(k, depth + 1)}=${javaString(item, depth + 1)}`).join(', ')}}`;
  if (v instanceof DocValues) return `[${v.values.map((item) => javaString(item, depth + 1)).join(', ')}]`;
  if (v instanceof DateValue) return new Date(v.millis).toISOString().replace('.000Z', 'Z');
  if (v instanceof DocMap) return 'doc';
  return `class ${v.name}`;
}

export function isNumeric(v: Value): v is bigint | number {
  return typeof v === 'bigint' || typeof v === 'number';
}

/** Painless `==`: equals() for objects, numeric comparison across int/long/double. */
export function valueEquals(a: Value, b: Value, depth = 0): boolean {
  if (depth > 64) return false;
  if (isNumeric(a) && isNumeric(b)) return typeof a === typeof b ? a === b : Number(a) === Number(b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => valueEquals(item, b[i] as Value, depth + 1));
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, item] of a)
      if (!b.has(k) || !valueEquals(item, b.get(k) as Value, depth + 1)) return false;
    return true;
  }
  if (a instanceof DateValue && b instanceof DateValue) return a.millis === b.millis;
  return a === b;
}
