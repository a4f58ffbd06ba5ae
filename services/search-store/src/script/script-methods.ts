import { castError, fail, npe, toIndex, type ScriptRuntime } from './script-runtime';
import {
  DateValue,
  DocMap,
  DocValues,
  StaticType,
  isNumeric,
  typeOfValue,
  valueEquals,
  type ScriptMap,
  type Value,
} from './script-values';

/**
 * The whitelist: the only members and methods a script can reach (Painless's allow-list idea). Anything
 * else, on any receiver, is "dynamic method [...] not found": there is no path to JS prototypes.
 */
export function callMethod(rt: ScriptRuntime, recv: Value, name: string, args: Value[], at: number): Value {
  if (recv === null) return npe(`call method [${name}]`, at);
  if (typeof recv === 'string') return stringMethod(rt, recv, name, args, at);
  if (isNumeric(recv)) return numberMethod(rt, recv, name, args, at);
  if (typeof recv === 'boolean' && name === 'booleanValue' && args.length === 0) return recv;
  if (Array.isArray(recv)) return listMethod(rt, recv, name, args, at);
  if (recv instanceof Map) return mapMethod(rt, recv, name, args, at);
  if (recv instanceof DocValues) return docValuesMethod(recv, name, args, at);
  if (recv instanceof DateValue) return dateMethod(rt, recv, name, args, at);
  if (recv instanceof StaticType) return staticCall(rt, recv.name, name, args, at);
  if (recv instanceof DocMap && name === 'get' && args.length === 1)
    return docField(recv, args[0] as Value, at);
  if (recv instanceof DocMap && name === 'containsKey' && args.length === 1) {
    return typeof args[0] === 'string' && recv.lookup(args[0]) !== undefined;
  }
  if (name === 'toString' && args.length === 0) return rt.stringOf(recv, at);
  if (name === 'equals' && args.length === 1) return valueEquals(recv, args[0] as Value, () => rt.step(at));
  return notFound(recv, name, args.length, at);
}

function notFound(recv: Value, name: string, arity: number, at: number): never {
  return fail(
    'illegal_argument_exception',
    `dynamic method [${typeOfValue(recv)}, ${name}/${arity}] not found`,
    at,
  );
}

/** `x.foo`: a map key, a doc field, or Painless's getter shortcut (`.value` → getValue(), `.empty` → isEmpty()). */
export function getMember(rt: ScriptRuntime, recv: Value, name: string, at: number): Value {
  if (recv instanceof Map) return recv.has(name) ? (recv.get(name) as Value) : null;
  if (recv instanceof DocMap) return docField(recv, name, at);
  if (recv instanceof StaticType) return staticField(recv.name, name, at);
  if (Array.isArray(recv) && name === 'length') return BigInt(recv.length);
  if (recv !== null && typeof recv === 'object') {
    const cap = name.charAt(0).toUpperCase() + name.slice(1);
    for (const getter of [`get${cap}`, `is${cap}`]) {
      if (hasGetter(recv, getter)) return callMethod(rt, recv, getter, [], at);
    }
  }
  if (recv === null) return npe(`access member [${name}]`, at);
  return fail('illegal_argument_exception', `dynamic getter [${typeOfValue(recv)}, ${name}] not found`, at);
}

const DOC_VALUES_GETTERS: ReadonlySet<string> = new Set(['getValue', 'getValues', 'isEmpty', 'getLength']);
const DATE_GETTERS: ReadonlySet<string> = new Set([
  'getMillis',
  'getYear',
  'getMonthValue',
  'getDayOfMonth',
  'getDayOfYear',
  'getHour',
  'getMinute',
  'getSecond',
  'getDayOfWeek',
]);
const LIST_GETTERS: ReadonlySet<string> = new Set(['isEmpty']);

function hasGetter(recv: Value, getter: string): boolean {
  if (recv instanceof DocValues) return DOC_VALUES_GETTERS.has(getter);
  if (recv instanceof DateValue) return DATE_GETTERS.has(getter);
  if (Array.isArray(recv)) return LIST_GETTERS.has(getter);
  return false;
}

export function setMember(rt: ScriptRuntime, recv: Value, name: string, value: Value, at: number): void {
  if (recv instanceof Map) {
    if (!recv.has(name)) rt.chargeSlots(1, at);
    recv.set(name, value);
    rt.checkSize(recv.size, at);
    return;
  }
  if (recv === null) return npe(`set member [${name}]`, at);
  fail('illegal_argument_exception', `dynamic setter [${typeOfValue(recv)}, ${name}] not found`, at);
}

/** `doc['f']`: Elasticsearch answers an unmapped field with "No field found for [f] in mapping". */
export function docField(doc: DocMap, key: Value, at: number): DocValues {
  if (typeof key !== 'string') return castError(key, 'java.lang.String', at);
  const field = doc.lookup(key);
  if (!field) return fail('illegal_argument_exception', `No field found for [${key}] in mapping`, at);
  return field;
}

export function getIndex(rt: ScriptRuntime, recv: Value, index: Value, at: number): Value {
  if (Array.isArray(recv) || recv instanceof DocValues) {
    const list = Array.isArray(recv) ? recv : recv.values;
    return list[listIndex(list, index, at)] as Value;
  }
  if (recv instanceof Map) return recv.has(index) ? (recv.get(index) as Value) : null;
  if (recv instanceof DocMap) return docField(recv, index, at);
  if (recv === null) return npe('index', at);
  return fail(
    'illegal_argument_exception',
    `Attempting to address a non-array type [${typeOfValue(recv)}] as an array.`,
    at,
  );
}

export function setIndex(rt: ScriptRuntime, recv: Value, index: Value, value: Value, at: number): void {
  if (Array.isArray(recv)) {
    recv[listIndex(recv, index, at)] = value;
    return;
  }
  if (recv instanceof Map) {
    if (!recv.has(index)) rt.chargeSlots(1, at);
    recv.set(index, value);
    rt.checkSize(recv.size, at);
    return;
  }
  if (recv === null) return npe('index', at);
  fail(
    'illegal_argument_exception',
    `Attempting to address a non-array type [${typeOfValue(recv)}] as an array.`,
    at,
  );
}

function listIndex(list: Value[], index: Value, at: number): number {
  let i = toIndex(index, at);
  if (i < 0) i += list.length; // Painless: list[-1] is the last element
  if (i < 0 || i >= list.length) {
    return fail(
      'index_out_of_bounds_exception',
      `Index ${toIndex(index, at)} out of bounds for length ${list.length}`,
      at,
    );
  }
  return i;
}

function str(v: Value, at: number): string {
  return typeof v === 'string' ? v : castError(v, 'java.lang.String', at);
}

function stringMethod(rt: ScriptRuntime, s: string, name: string, args: Value[], at: number): Value {
  const [a = null, b = null] = args;
  switch (`${name}/${args.length}`) {
    case 'length/0':
      return BigInt(s.length);
    case 'isEmpty/0':
      return s.length === 0;
    case 'toLowerCase/0':
      rt.chargeString(s.length, at);
      return s.toLowerCase();
    case 'toUpperCase/0':
      rt.chargeString(s.length, at);
      return s.toUpperCase();
    case 'trim/0':
      rt.chargeString(s.length, at);
      return s.trim();
    case 'toString/0':
      return s;
    case 'contains/1':
      return s.includes(str(a, at));
    case 'startsWith/1':
      return s.startsWith(str(a, at));
    case 'endsWith/1':
      return s.endsWith(str(a, at));
    case 'indexOf/1':
      return BigInt(s.indexOf(str(a, at)));
    case 'lastIndexOf/1':
      return BigInt(s.lastIndexOf(str(a, at)));
    case 'equals/1':
      return s === a;
    case 'equalsIgnoreCase/1':
      return typeof a === 'string' && s.toLowerCase() === a.toLowerCase();
    case 'compareTo/1': {
      const other = str(a, at);
      return s < other ? -1n : s > other ? 1n : 0n;
    }
    case 'concat/1':
      return rt.concat(s, str(a, at), at);
    case 'charAt/1': {
      const i = toIndex(a, at);
      if (i < 0 || i >= s.length)
        fail('string_index_out_of_bounds_exception', `index ${i}, length ${s.length}`, at);
      return s.charAt(i);
    }
    case 'replace/2': {
      const parts = s.split(str(a, at));
      const by = str(b, at);
      // Checked before joining: `'x'.replace('', big)` would otherwise build the whole result first.
      rt.chargeSlots(parts.length, at);
      rt.reserveString(s.length + (parts.length - 1) * (by.length - str(a, at).length), at);
      return parts.join(by);
    }
    case 'substring/1':
    case 'substring/2': {
      const begin = toIndex(a, at);
      const end = args.length === 2 ? toIndex(b, at) : s.length;
      if (begin < 0 || end > s.length || begin > end) {
        fail('string_index_out_of_bounds_exception', `begin ${begin}, end ${end}, length ${s.length}`, at);
      }
      rt.chargeString(end - begin, at);
      return s.substring(begin, end);
    }
    case 'splitOnToken/1': {
      const parts = s.split(str(a, at));
      rt.checkSize(parts.length, at);
      rt.chargeSlots(parts.length, at);
      rt.chargeString(s.length, at);
      return parts;
    }
    default:
      return notFound(s, name, args.length, at);
  }
}

function numberMethod(rt: ScriptRuntime, n: bigint | number, name: string, args: Value[], at: number): Value {
  switch (`${name}/${args.length}`) {
    case 'intValue/0':
      return BigInt.asIntN(32, toLong(n));
    case 'longValue/0':
      return toLong(n);
    case 'doubleValue/0':
      return Number(n);
    case 'floatValue/0':
      return Math.fround(Number(n));
    case 'toString/0':
      return rt.stringOf(n, at);
    case 'equals/1':
      return typeof args[0] === typeof n && valueEquals(n, args[0] as Value, () => rt.step(at));
    case 'compareTo/1': {
      const other = args[0] as Value;
      if (!isNumeric(other)) return castError(other, 'java.lang.Number', at);
      return n < other ? -1n : n > other ? 1n : 0n;
    }
    default:
      return notFound(n, name, args.length, at);
  }
}

/** Java's (long) cast of a double: truncation, NaN → 0, saturation at the long range. */
export function toLong(n: bigint | number): bigint {
  if (typeof n === 'bigint') return n;
  if (Number.isNaN(n)) return 0n;
  if (n >= 9.223372036854776e18) return 9223372036854775807n;
  if (n <= -9.223372036854776e18) return -9223372036854775808n;
  return BigInt(Math.trunc(n));
}

function listMethod(rt: ScriptRuntime, list: Value[], name: string, args: Value[], at: number): Value {
  const [a = null, b = null] = args;
  switch (`${name}/${args.length}`) {
    case 'size/0':
    case 'getLength/0':
      return BigInt(list.length);
    case 'isEmpty/0':
      return list.length === 0;
    case 'add/1':
      rt.checkSize(list.length + 1, at);
      rt.chargeSlots(1, at);
      list.push(a);
      return true;
    case 'add/2': {
      const i = toIndex(a, at);
      if (i < 0 || i > list.length)
        fail('index_out_of_bounds_exception', `Index: ${i}, Size: ${list.length}`, at);
      rt.checkSize(list.length + 1, at);
      rt.chargeSlots(1, at);
      list.splice(i, 0, b);
      return null;
    }
    case 'addAll/1': {
      const items = iterableValues(a, at);
      rt.checkSize(list.length + items.length, at);
      rt.chargeSlots(2 * items.length, at); // the copy, then the new slots
      list.push(...items);
      return items.length > 0;
    }
    case 'get/1':
      return getIndex(rt, list, a, at);
    case 'set/2': {
      const previous = getIndex(rt, list, a, at);
      setIndex(rt, list, a, b, at);
      return previous;
    }
    case 'contains/1':
      return list.some((item) => valueEquals(item, a, () => rt.step(at)));
    case 'indexOf/1':
      return BigInt(list.findIndex((item) => valueEquals(item, a, () => rt.step(at))));
    case 'remove/1': {
      const i = listIndex(list, a, at);
      return list.splice(i, 1)[0] as Value;
    }
    case 'clear/0':
      list.length = 0;
      return null;
    case 'subList/2': {
      const from = toIndex(a, at);
      const to = toIndex(b, at);
      if (from < 0 || to > list.length || from > to)
        fail('index_out_of_bounds_exception', `fromIndex: ${from}, toIndex: ${to}, size: ${list.length}`, at);
      rt.chargeSlots(to - from, at);
      return list.slice(from, to);
    }
    case 'toString/0':
      return rt.stringOf(list, at);
    case 'equals/1':
      return valueEquals(list, a, () => rt.step(at));
    default:
      return notFound(list, name, args.length, at);
  }
}

function mapMethod(rt: ScriptRuntime, map: ScriptMap, name: string, args: Value[], at: number): Value {
  const [a = null, b = null] = args;
  switch (`${name}/${args.length}`) {
    case 'size/0':
      return BigInt(map.size);
    case 'isEmpty/0':
      return map.size === 0;
    case 'get/1':
      return map.has(a) ? (map.get(a) as Value) : null;
    case 'getOrDefault/2':
      return map.has(a) ? (map.get(a) as Value) : b;
    case 'containsKey/1':
      return map.has(a);
    case 'containsValue/1':
      return [...map.values()].some((item) => valueEquals(item, a, () => rt.step(at)));
    case 'put/2': {
      const previous = map.has(a) ? (map.get(a) as Value) : null;
      if (!map.has(a)) rt.chargeSlots(1, at);
      map.set(a, b);
      rt.checkSize(map.size, at);
      return previous;
    }
    case 'putAll/1': {
      if (!(a instanceof Map)) return castError(a, 'java.util.Map', at);
      rt.chargeSlots(a.size, at);
      for (const [k, v] of a) map.set(k, v);
      rt.checkSize(map.size, at);
      return null;
    }
    case 'remove/1': {
      const previous = map.has(a) ? (map.get(a) as Value) : null;
      map.delete(a);
      return previous;
    }
    case 'clear/0':
      map.clear();
      return null;
    case 'keySet/0':
      rt.chargeSlots(map.size, at);
      return [...map.keys()];
    case 'values/0':
      rt.chargeSlots(map.size, at);
      return [...map.values()];
    case 'toString/0':
      return rt.stringOf(map, at);
    case 'equals/1':
      return valueEquals(map, a, () => rt.step(at));
    default:
      return notFound(map, name, args.length, at);
  }
}

const MISSING_VALUE =
  "A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field!";

function docValuesMethod(dv: DocValues, name: string, args: Value[], at: number): Value {
  switch (`${name}/${args.length}`) {
    case 'size/0':
    case 'getLength/0':
      return BigInt(dv.values.length);
    case 'isEmpty/0':
      return dv.values.length === 0;
    case 'getValue/0':
      // ScriptDocValues.get(0) on an empty field: Elasticsearch's message, an illegal_state_exception.
      if (dv.values.length === 0) return fail('illegal_state_exception', MISSING_VALUE, at);
      return dv.values[0] as Value;
    case 'getValues/0':
      return [...dv.values];
    case 'get/1': {
      const i = toIndex(args[0] as Value, at);
      if (i < 0 || i >= dv.values.length) {
        return fail(
          dv.values.length === 0 ? 'illegal_state_exception' : 'index_out_of_bounds_exception',
          dv.values.length === 0 ? MISSING_VALUE : `Index ${i} out of bounds for length ${dv.values.length}`,
          at,
        );
      }
      return dv.values[i] as Value;
    }
    case 'contains/1':
      return dv.values.some((item) => valueEquals(item, args[0] as Value));
    default:
      return notFound(dv, name, args.length, at);
  }
}

function dateMethod(rt: ScriptRuntime, d: DateValue, name: string, args: Value[], at: number): Value {
  const date = new Date(d.millis);
  switch (`${name}/${args.length}`) {
    case 'getMillis/0':
    case 'toEpochMilli/0':
      return BigInt(d.millis);
    case 'toInstant/0':
      return d;
    case 'getYear/0':
      return BigInt(date.getUTCFullYear());
    case 'getMonthValue/0':
      return BigInt(date.getUTCMonth() + 1);
    case 'getDayOfMonth/0':
      return BigInt(date.getUTCDate());
    case 'getDayOfYear/0':
      return BigInt(Math.floor((d.millis - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1);
    case 'getDayOfWeek/0':
      return BigInt(((date.getUTCDay() + 6) % 7) + 1); // ISO: Monday = 1 … Sunday = 7
    case 'getHour/0':
      return BigInt(date.getUTCHours());
    case 'getMinute/0':
      return BigInt(date.getUTCMinutes());
    case 'getSecond/0':
      return BigInt(date.getUTCSeconds());
    case 'toString/0':
      return rt.stringOf(d, at);
    default:
      return notFound(d, name, args.length, at);
  }
}

export function iterableValues(v: Value, at: number): Value[] {
  if (Array.isArray(v)) return [...v];
  if (v instanceof DocValues) return [...v.values];
  if (v === null) return npe('iterate', at);
  return castError(v, 'java.lang.Iterable', at);
}

function staticField(type: string, name: string, at: number): Value {
  const key = `${type}.${name}`;
  switch (key) {
    case 'Math.PI':
      return Math.PI;
    case 'Math.E':
      return Math.E;
    case 'Integer.MAX_VALUE':
      return 2147483647n;
    case 'Integer.MIN_VALUE':
      return -2147483648n;
    case 'Long.MAX_VALUE':
      return 9223372036854775807n;
    case 'Long.MIN_VALUE':
      return -9223372036854775808n;
    case 'Double.MAX_VALUE':
      return Number.MAX_VALUE;
    case 'Double.MIN_VALUE':
      return Number.MIN_VALUE;
    case 'Double.POSITIVE_INFINITY':
      return Infinity;
    case 'Double.NEGATIVE_INFINITY':
      return -Infinity;
    case 'Double.NaN':
      return NaN;
    default:
      return fail('illegal_argument_exception', `cannot resolve symbol [${key}]`, at);
  }
}

function num(v: Value, at: number): number {
  if (isNumeric(v)) return Number(v);
  return castError(v, 'double', at);
}

/**
 * Math's one-argument double functions, looked up by the script's method name: a Map, so `toString`,
 * `constructor` or `valueOf` find nothing (issue 17: a plain object answered them from Object.prototype).
 */
const DOUBLE_FUNCTIONS: ReadonlyMap<string, (x: number) => number> = new Map<string, (x: number) => number>([
  ['sqrt', Math.sqrt],
  ['cbrt', Math.cbrt],
  ['floor', Math.floor],
  ['ceil', Math.ceil],
  ['log', Math.log],
  ['log10', Math.log10],
  ['log1p', Math.log1p],
  ['exp', Math.exp],
  ['expm1', Math.expm1],
  ['sin', Math.sin],
  ['cos', Math.cos],
  ['tan', Math.tan],
  ['asin', Math.asin],
  ['acos', Math.acos],
  ['atan', Math.atan],
  ['signum', Math.sign],
  ['toRadians', (x) => (x * Math.PI) / 180],
  ['toDegrees', (x) => (x * 180) / Math.PI],
  // Java's rint rounds half to even.
  ['rint', (x) => (Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x))],
]);

function parseNumber(s: Value, integral: boolean, at: number): Value {
  const text = str(s, at);
  const ok = integral
    ? /^[-+]?\d+$/.test(text)
    : /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[dDfF]?$/.test(text.trim());
  if (!ok) return fail('number_format_exception', `For input string: "${text}"`, at);
  return integral ? BigInt(text) : Number(text.trim().replace(/[dDfF]$/, ''));
}

function staticCall(rt: ScriptRuntime, type: string, name: string, args: Value[], at: number): Value {
  const [a = null, b = null] = args;
  const key = `${type}.${name}/${args.length}`;
  const doubleFunction = type === 'Math' && args.length === 1 ? DOUBLE_FUNCTIONS.get(name) : undefined;
  if (doubleFunction) return doubleFunction(num(a, at));
  switch (key) {
    case 'Math.abs/1':
      if (typeof a === 'bigint') return a < 0n ? -a : a;
      return Math.abs(num(a, at));
    case 'Math.max/2':
    case 'Math.min/2': {
      if (typeof a === 'bigint' && typeof b === 'bigint') return (name === 'max' ? a > b : a < b) ? a : b;
      return name === 'max' ? Math.max(num(a, at), num(b, at)) : Math.min(num(a, at), num(b, at));
    }
    case 'Math.pow/2':
      return Math.pow(num(a, at), num(b, at));
    case 'Math.atan2/2':
      return Math.atan2(num(a, at), num(b, at));
    case 'Math.hypot/2':
      return Math.hypot(num(a, at), num(b, at));
    case 'Math.round/1': {
      // Java: Math.round(double) = floor(x + 0.5) as a long.
      const x = num(a, at);
      return toLong(Math.floor(x + 0.5));
    }
    case 'Integer.parseInt/1':
    case 'Integer.valueOf/1':
    case 'Long.parseLong/1':
    case 'Long.valueOf/1':
      return typeof a === 'string'
        ? parseNumber(a, true, at)
        : typeof a === 'bigint'
          ? a
          : castError(a, 'java.lang.String', at);
    case 'Double.parseDouble/1':
    case 'Double.valueOf/1':
    case 'Float.parseFloat/1':
      return typeof a === 'string' ? parseNumber(a, false, at) : num(a, at);
    case 'Boolean.parseBoolean/1':
      return typeof a === 'string' && a.toLowerCase() === 'true';
    case 'String.valueOf/1':
    case 'Integer.toString/1':
    case 'Long.toString/1':
    case 'Double.toString/1':
      return rt.stringOf(a, at);
    case 'String.join/2': {
      const separator = str(a, at);
      const parts = iterableValues(b, at).map((item) => rt.stringOf(item, at));
      rt.chargeSlots(2 * parts.length, at);
      const length = parts.reduce(
        (n, part) => n + part.length,
        separator.length * Math.max(0, parts.length - 1),
      );
      rt.reserveString(length, at);
      return parts.join(separator);
    }
    default:
      return fail(
        'illegal_argument_exception',
        `Unknown call [${name}] with [${args.length}] arguments on type [${type}].`,
        at,
      );
  }
}
