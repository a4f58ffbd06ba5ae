import { RawJson } from '../http/raw-json';
import { javaDoubleToString } from './raw-number';

/**
 * `unsigned_long` values (ES "Unsigned long field type", UnsignedLongFieldMapper): integers in
 * [0, 2^64-1], always as BigInt or text here, never through a JS number past 2^53. Doc values hold
 * them as 20 zero-padded decimal digits in the `kw` column, so `COLLATE "C"` order is numeric order
 * and term/range queries, sort and terms aggregations use the keyword doc-value index unchanged.
 */
export const UNSIGNED_LONG_MAX = 2n ** 64n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const KEY_DIGITS = 20;

export function unsignedLongKey(value: bigint): string {
  return value.toString().padStart(KEY_DIGITS, '0');
}

export function unsignedLongFromKey(key: string): bigint {
  return BigInt(key);
}

/**
 * A value as ES prints an unsigned long (a JSON integer): a plain number while a double holds it
 * exactly, else the digits spliced into the response as they are (http/raw-json.ts).
 */
export function unsignedLongJson(value: bigint): number | RawJson {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : new RawJson(value.toString());
}

export type UnsignedLongParse = { ok: true; value: bigint } | { ok: false; reason: string };

const fail = (reason: string): UnsignedLongParse => ({ ok: false, reason });

/** Java's `BigDecimal(String)` grammar: sign, digits with an optional point, optional exponent. */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,9}))?$/;

/** An exact decimal: `digits × 10^scale` with its sign, undefined when the text is not a decimal. */
interface Decimal {
  negative: boolean;
  digits: bigint;
  scale: number;
}

function parseDecimal(text: string): Decimal | undefined {
  const match = DECIMAL.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const fraction = match[3] ?? '';
  const scale = Number(match[4] ?? '0') - fraction.length;
  // A value past 10^40 or below 10^-40 only needs to be known as "too big" or "a fraction".
  if (scale > 40)
    return {
      negative: match[1] === '-',
      digits: BigInt(`${match[2]}${fraction}` || '0') * 10n ** 40n,
      scale: 0,
    };
  return { negative: match[1] === '-', digits: BigInt(`${match[2]}${fraction}` || '0'), scale };
}

/** The integer part of a decimal (toward zero) and whether a fraction was cut. */
function integerPart(d: Decimal): { value: bigint; fraction: boolean } {
  if (d.scale >= 0) {
    const v = d.digits * 10n ** BigInt(d.scale);
    return { value: d.negative ? -v : v, fraction: false };
  }
  const divisor = 10n ** BigInt(Math.min(-d.scale, 400));
  const q = d.digits / divisor;
  return { value: d.negative ? -q : q, fraction: q * divisor !== d.digits };
}

function checkLong(value: bigint): UnsignedLongParse {
  // Jackson gives a long for an integer that fits one; ES's message then ends with a period.
  if (value < 0n) return fail(`Value [${value}] is out of range for unsigned long.`);
  return { ok: true, value };
}

function checkBigInteger(value: bigint): UnsignedLongParse {
  if (value < 0n || value > UNSIGNED_LONG_MAX)
    return fail(`Value [${value}] is out of range for unsigned long`);
  return { ok: true, value };
}

/**
 * A document value (`UnsignedLongFieldMapper.parseUnsignedLong`): a JSON integer exactly (its text
 * when the caller has it), a JSON fraction as Java's double (whole ones accepted, truncated to a
 * long), a string as `Long.parseUnsignedLong`, else as a BigDecimal that must be whole.
 */
export function parseUnsignedLongValue(value: unknown, rawText?: string): UnsignedLongParse {
  if (typeof value === 'number') {
    if (rawText !== undefined && /^-?\d+$/.test(rawText)) {
      const exact = BigInt(rawText);
      return exact >= LONG_MIN && exact <= LONG_MAX ? checkLong(exact) : checkBigInteger(exact);
    }
    if (Number.isSafeInteger(value) && (rawText === undefined || !/[.eE]/.test(rawText)))
      return checkLong(BigInt(value));
    // A fractional literal is a Java double: whole values pass through `longValue()`, which saturates.
    if (!Number.isFinite(value) || Math.floor(value) !== value)
      return fail(`Value "${javaDoubleToString(value)}" has a decimal part`);
    const saturated = value >= 2 ** 63 ? LONG_MAX : value <= -(2 ** 63) ? LONG_MIN : BigInt(value);
    return checkLong(saturated);
  }
  const text = String(value);
  if (/^\+?\d{1,20}$/.test(text)) {
    const v = BigInt(text.replace(/^\+/, ''));
    if (v <= UNSIGNED_LONG_MAX) return { ok: true, value: v };
  }
  const decimal = parseDecimal(text);
  if (!decimal) return fail(`For input string: "${text}"`);
  const { value: whole, fraction } = integerPart(decimal);
  if (fraction) return fail(`Value "${text}" has a decimal part`);
  return checkBigInteger(whole);
}

/** An unsigned long query value that is not a number, with ES's exception. */
export class UnsignedLongQueryError extends Error {
  constructor(
    readonly type: 'number_format_exception',
    message: string,
  ) {
    super(message);
    this.name = 'UnsignedLongQueryError';
  }
}

function queryText(value: string | number | boolean): string {
  return typeof value === 'number' ? numberText(value) : String(value);
}

/** A JS number as a decimal text (`1e+21` is a valid BigDecimal too). */
function numberText(value: number): string {
  return Number.isSafeInteger(value) ? String(value) : String(value).replace('e+', 'e');
}

/**
 * `UnsignedLongFieldType.parseTerm`: the key a term matches, undefined for a number that no unsigned
 * long equals (negative, fractional, past 2^64-1); a text that is no number fails as ES's parser does.
 */
export function unsignedLongTermKey(value: string | number | boolean): string | undefined {
  const text = queryText(value);
  if (/^\+?\d{1,20}$/.test(text)) {
    const v = BigInt(text.replace(/^\+/, ''));
    return v <= UNSIGNED_LONG_MAX ? unsignedLongKey(v) : undefined;
  }
  // Double.parseDouble accepts surrounding whitespace, Infinity and NaN: all match nothing.
  const trimmed = text.trim();
  if (parseDecimal(trimmed) || /^[+-]?(Infinity|NaN)$/.test(trimmed)) return undefined;
  throw new UnsignedLongQueryError('number_format_exception', `For input string: "${text}"`);
}

/**
 * The inclusive key of a range bound (`parseLowerRangeTerm`/`parseUpperRangeTerm`): fractions round
 * toward the inside of the range, bounds past either end clamp, and undefined means no value fits.
 */
export function unsignedLongBoundKey(
  value: string | number | boolean,
  side: 'lower' | 'upper',
  include: boolean,
): string | undefined {
  const text = queryText(value);
  const decimal = parseDecimal(text);
  if (!decimal) {
    const bad = [...text].find((c) => !/[\d.eE+-]/.test(c)) ?? text.charAt(0);
    throw new UnsignedLongQueryError(
      'number_format_exception',
      `Character ${bad} is neither a decimal digit number, decimal point, nor "e" notation exponential mark.`,
    );
  }
  const { value: whole, fraction } = integerPart(decimal);
  const isZero = decimal.digits === 0n;
  if (side === 'lower') {
    if (decimal.negative || isZero) return unsignedLongKey(0n);
    if (whole > UNSIGNED_LONG_MAX || (whole === UNSIGNED_LONG_MAX && !fraction && !include)) return undefined;
    const first = !include || fraction ? whole + 1n : whole;
    return first > UNSIGNED_LONG_MAX ? undefined : unsignedLongKey(first);
  }
  if ((decimal.negative && !isZero) || (isZero && !include)) return undefined;
  if (whole > UNSIGNED_LONG_MAX) return unsignedLongKey(UNSIGNED_LONG_MAX);
  const last = !include && !fraction ? whole - 1n : whole;
  return last < 0n ? undefined : unsignedLongKey(last);
}

/**
 * The exact values a document holds in its unsigned_long fields, noted while the document is mapped
 * (when its JSON text is at hand) and read when it is indexed: the parsed source holds doubles, which
 * lose the digits past 2^53. Keyed by the parsed source object, so an entry lives as long as it does.
 */
const exactValues = new WeakMap<object, Map<string, bigint[]>>();

export function forgetUnsignedLongs(source: object): void {
  exactValues.delete(source);
}

export function noteUnsignedLong(source: object, path: string, value: bigint): void {
  let byPath = exactValues.get(source);
  if (!byPath) exactValues.set(source, (byPath = new Map()));
  const list = byPath.get(path);
  if (list) list.push(value);
  else byPath.set(path, [value]);
}

/** The exact values noted for a field of this source, undefined when it was not mapped from its text. */
export function notedUnsignedLongs(source: object, path: string): bigint[] | undefined {
  return exactValues.get(source)?.get(path);
}

/** A value from a parsed source as an unsigned long (a double past 2^53 is taken as it is), if valid. */
export function unsignedLongOf(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value >= 0n && value <= UNSIGNED_LONG_MAX ? value : undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
    const v = BigInt(value);
    return v > UNSIGNED_LONG_MAX ? undefined : v;
  }
  const parsed = parseUnsignedLongValue(value);
  return parsed.ok ? parsed.value : undefined;
}

const BIG_MARK = '\u0000ul:';

/**
 * A JSON text parsed with its integer literals of 16 digits or more as BigInt (JSON.parse would round
 * them to doubles): what `fields` reads unsigned longs from. One pass over the text, strings skipped.
 */
export function parseJsonWithBigIntegers(text: string): unknown {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, escapes included.
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i++;
      while (i < text.length && /[0-9.eE+-]/.test(text.charAt(i))) i++;
      const token = text.slice(start, i);
      if (/^-?\d{16,}$/.test(token)) {
        // The mark goes in escaped (`\u0000`): JSON.parse turns it into the NUL that starts BIG_MARK.
        out += `${text.slice(copied, start)}"\\u0000ul:${token}"`;
        copied = i;
      }
      continue;
    }
    i++;
  }
  if (copied === 0) return JSON.parse(text) as unknown;
  out += text.slice(copied);
  return JSON.parse(out, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(BIG_MARK) ? BigInt(value.slice(BIG_MARK.length)) : value,
  ) as unknown;
}
