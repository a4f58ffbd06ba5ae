import type { EsCause } from '@acme/common';
import { DEFAULT_DATE_FORMAT, type FieldMapping } from './mapping-types';
import { parseDate } from './parse-date';
import { DEFAULT_DATE_NANOS_FORMAT, parseDateNanos } from './date-nanos';
import { notAnIp, parseIpBytes } from './ip-value';
import { parseUnsignedLongValue } from './unsigned-long';
import { checkRawInteger, isDecimalOutsideLong, type RawNumber } from './raw-number';

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
 * Checks one leaf value (never null, never an array) against its field, per API-NOTES §A1.4 and the
 * field-type pages of the ES reference: integers accept numbers and numeric strings and truncate
 * fractions (coerce), floats must be finite, booleans are true/false/"true"/"false"/"", dates follow
 * `format`, binary is base64, keyword/text take strings, numbers and booleans.
 */
export function checkFieldValue(field: FieldMapping, value: unknown, raw?: RawNumber): ValueCheck {
  const type = field.type;
  switch (type) {
    case 'byte':
    case 'short':
    case 'integer':
    case 'long':
      // A JSON number with its text goes through Jackson's conversions, as ES's parser does.
      if (typeof value === 'number' && raw !== undefined) return checkRawInteger(type, value, raw);
      if (type === 'long' && typeof value === 'string') return checkLongString(value);
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
    case 'date_nanos': {
      const format = field.format ?? DEFAULT_DATE_NANOS_FORMAT;
      const parsed = parseDateNanos(value, format);
      if (parsed.ok) return OK;
      return parsed.kind === 'range'
        ? fail('illegal_argument_exception', parsed.reason)
        : checkDate(format, value);
    }
    case 'binary':
      if (typeof value === 'string' && isBase64(value)) return OK;
      return fail('illegal_argument_exception', `failed to decode base64 value [${preview(value)}]`);
    case 'unsigned_long': {
      // An empty string is a null (UnsignedLongFieldMapper.parseCreateField).
      if (value === '') return OK;
      const parsed = parseUnsignedLongValue(value, raw?.text);
      return parsed.ok ? OK : fail('illegal_argument_exception', parsed.reason);
    }
    case 'ip':
      // IpFieldMapper reads the token's text: numbers and booleans are tried as addresses too.
      if (typeof value !== 'object' && parseIpBytes(String(value)) !== undefined) return OK;
      return fail('illegal_argument_exception', notAnIp(preview(value)));
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
  // Without the number's text (a source we re-serialised: merged updates, script results, reindex
  // copies) a long is only a double, and 2^63 is also the double of Long.MAX_VALUE: accept it, so a
  // stored 9223372036854775807 can be updated. The client's own text is checked exactly (raw-number.ts).
  const tooBig = n > range.max;
  if (!Number.isFinite(n) || tooBig || n < range.min) {
    return fail(
      'illegal_argument_exception',
      `Value [${preview(value)}] is out of range for ${range.article}`,
    );
  }
  return OK;
}

/** ES `AbstractXContentParser.toLong`: numeric strings are compared exactly (BigDecimal). */
function checkLongString(value: string): ValueCheck {
  const outside = isDecimalOutsideLong(value);
  if (outside === true)
    return fail('illegal_argument_exception', `Value [${value}] is out of range for a long`);
  if (outside === false) return OK;
  return checkInteger('long', value);
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
