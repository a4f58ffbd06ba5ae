import type { EsCause } from '@acme/common';
import { DEFAULT_DATE_FORMAT, type FieldMapping } from './mapping-types';
import { parseDate } from './parse-date';

/** The low-level cause Elasticsearch puts under `caused_by` when a value does not fit its field. */
export type ValueCheck = { ok: true } | { ok: false; cause: EsCause };

const OK: ValueCheck = { ok: true };
const fail = (type: string, reason: string): ValueCheck => ({ ok: false, cause: { type, reason } });

const INTEGER_RANGES = {
  byte: { min: -128, max: 127, article: 'a byte' },
  short: { min: -32768, max: 32767, article: 'a short' },
  integer: { min: -(2 ** 31), max: 2 ** 31 - 1, article: 'an integer' },
  long: { min: -(2 ** 63), max: 2 ** 63, article: 'a long' },
} as const;

/**
 * A JSON number as written in the document: its text and where its token ends (Jackson reports the
 * parser's current location, just past the token). JS doubles cannot tell -2^63 from -2^63-1, so the
 * long range is checked on this text when the caller has it.
 */
export interface RawNumber {
  text: string;
  line: number;
  col: number;
}

/**
 * Checks one leaf value (never null, never an array) against its field, per API-NOTES §A1.4 and the
 * field-type pages of the ES reference: integers accept numbers and numeric strings and truncate
 * fractions (coerce), floats must be finite, booleans are true/false/"true"/"false"/"", dates follow
 * `format`, binary is base64, keyword/text take strings, numbers and booleans.
 */
export function checkFieldValue(field: FieldMapping, value: unknown, raw?: RawNumber): ValueCheck {
  const type = field.type;
  switch (type) {
    case 'long':
      return checkLong(value, raw);
    case 'byte':
    case 'short':
    case 'integer':
      return checkInteger(type, value);
    case 'float':
    case 'half_float':
    case 'double':
    case 'scaled_float':
      return checkFloat(type, value);
    case 'boolean':
      if (value === true || value === false || value === 'true' || value === 'false' || value === '')
        return OK;
      return fail(
        'illegal_argument_exception',
        `Failed to parse value [${String(value)}] as only [true] or [false] are allowed.`,
      );
    case 'date':
      return checkDate(field.format ?? DEFAULT_DATE_FORMAT, value);
    case 'binary':
      if (typeof value === 'string' && isBase64(value)) return OK;
      return fail('illegal_argument_exception', `failed to decode base64 value [${preview(value)}]`);
    case 'keyword':
    case 'text':
      if (typeof value === 'object') {
        return fail('illegal_argument_exception', `Can't get text on a START_OBJECT`);
      }
      return OK;
    default:
      return OK;
  }
}

function checkInteger(type: keyof typeof INTEGER_RANGES, value: unknown): ValueCheck {
  let n = toNumber(value);
  if (n === undefined) return fail('number_format_exception', `For input string: "${preview(value)}"`);
  const range = INTEGER_RANGES[type];
  // Fractions are truncated before the range check (coerce; XContentParser#intValue), so 127.9 is a byte.
  n = Math.trunc(n);
  // The long bound is compared on doubles: 2^63 is the first double outside the long range.
  const tooBig = type === 'long' ? n >= range.max : n > range.max;
  if (!Number.isFinite(n) || tooBig || n < range.min) {
    return fail(
      'illegal_argument_exception',
      `Value [${preview(value)}] is out of range for ${range.article}`,
    );
  }
  return OK;
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN_D = -(2 ** 63);
const LONG_MAX_D = 2 ** 63; // (double) Long.MAX_VALUE

/** True when a (long) value needs its raw text: beyond 2^53 a double no longer holds every integer. */
export function needsRawLongText(value: unknown): boolean {
  return typeof value === 'number' && Math.abs(value) >= 2 ** 53;
}

/**
 * `long` (ES NumberFieldMapper LONG → `XContentParser.longValue(coerce)`): a JSON number goes through
 * Jackson's `getLongValue`, which refuses an integer literal outside [-2^63, 2^63-1] and a fractional
 * one outside [(double) Long.MIN_VALUE, (double) Long.MAX_VALUE] with "Numeric value (…) out of range
 * of long", wrapped as `x_content_parse_exception` (JsonXContentParser#doLongValue); a string goes
 * through `toLong`, which compares the exact decimal with 2^63 and -2^63-1.
 */
function checkLong(value: unknown, raw?: RawNumber): ValueCheck {
  if (typeof value === 'number' && raw !== undefined) {
    const outside = /^-?\d+$/.test(raw.text)
      ? BigInt(raw.text) < LONG_MIN || BigInt(raw.text) > LONG_MAX
      : !(value >= LONG_MIN_D && value <= LONG_MAX_D);
    return outside ? jacksonLongOverflow(raw) : OK;
  }
  if (typeof value === 'string') {
    const outside = isDecimalOutsideLong(value);
    if (outside === true) {
      return fail('illegal_argument_exception', `Value [${value}] is out of range for a long`);
    }
    if (outside === false) return OK;
  }
  return checkInteger('long', value);
}

function jacksonLongOverflow(raw: RawNumber): ValueCheck {
  const digits = raw.text.replace(/^-/, '').length;
  // Jackson `_longIntegerDesc`: past 1000 characters the number is described, not printed.
  const shown = raw.text.length < 1000 ? raw.text : `[Integer with ${digits} digits]`;
  return fail(
    'x_content_parse_exception',
    `[${raw.line}:${raw.col}] Numeric value (${shown}) out of range of long (-9223372036854775808 - 9223372036854775807)\n at [Source: REDACTED (\`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION\` disabled); line: ${raw.line}, column: ${raw.col}]`,
  );
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * ES `AbstractXContentParser.toLong`: `new BigDecimal(text)` out of range when ≥ 2^63 or ≤ -2^63-1
 * (fractions in between are truncated later). Undefined when the text is not a decimal.
 */
export function isDecimalOutsideLong(text: string): boolean | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const fraction = match[3] ?? '';
  const digits = `${match[2]}${fraction}`.replace(/^0+/, '');
  if (digits === '') return false;
  const scale = Number(match[4] ?? '0') - fraction.length; // value = digits × 10^scale
  const integerDigits = digits.length + scale;
  if (integerDigits > 20) return true;
  if (integerDigits < 0) return false; // |value| < 1
  const d = BigInt(digits);
  const [numerator, denominator] = scale >= 0 ? [d * 10n ** BigInt(scale), 1n] : [d, 10n ** BigInt(-scale)];
  const bound = match[1] === '-' ? -LONG_MIN + 1n : LONG_MAX + 1n;
  return numerator >= bound * denominator;
}

/**
 * What ES prints for a number in "Preview of field's value": Jackson's number value, i.e. the integer
 * literal's digits or the Java `Double.toString` of a fractional literal (`1.0E20`, `10.0`).
 */
export function previewNumber(rawText: string): string {
  if (/^-?\d+$/.test(rawText)) return BigInt(rawText).toString();
  return javaDoubleToString(Number(rawText));
}

function javaDoubleToString(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const plain = String(n);
    return plain.includes('.') ? plain : `${plain}.0`;
  }
  const [mantissa = '', exponent = '0'] = n.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

function checkFloat(type: string, value: unknown): ValueCheck {
  const n = toNumber(value);
  if (n === undefined) return fail('number_format_exception', `For input string: "${preview(value)}"`);
  const stored = type === 'float' ? Math.fround(n) : n;
  if (!Number.isFinite(stored)) {
    return fail(
      'illegal_argument_exception',
      `[${type}] supports only finite values, but got [${preview(value)}]`,
    );
  }
  return OK;
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value))
    return Number(value);
  if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return Number(value);
  return undefined;
}

function checkDate(format: string, value: unknown): ValueCheck {
  if ((typeof value === 'string' || typeof value === 'number') && parseDate(value, format) !== undefined) {
    return OK;
  }
  return {
    ok: false,
    cause: {
      type: 'illegal_argument_exception',
      reason: `failed to parse date field [${preview(value)}] with format [${format}]`,
      caused_by: {
        type: 'date_time_parse_exception',
        reason: `Failed to parse with all enclosed parsers`,
      },
    },
  };
}

function isBase64(text: string): boolean {
  const compact = text.replace(/\s+/g, '');
  return /^[A-Za-z0-9+/]*={0,2}$/.test(compact) && compact.length % 4 !== 1;
}

/** How Elasticsearch previews a value in errors: objects print as `{a=1}`, the rest as text. */
export function preview(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(preview).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${preview(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}
