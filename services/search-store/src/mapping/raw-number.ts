import type { EsCause } from '@acme/common';

/**
 * A JSON number as written in the document: its text and where its token ends (Jackson reports the
 * parser's current location, just past the token). JS doubles cannot tell -2^63 from -2^63-1, and
 * Elasticsearch's errors quote the text, so integer fields are checked on it when the caller has it.
 */
export interface RawNumber {
  text: string;
  line: number;
  col: number;
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
/** Jackson's `MIN_LONG_D`/`MAX_LONG_D`, `MIN_INT_D`/`MAX_INT_D`: the bounds as doubles. */
const LONG_MIN_D = -(2 ** 63);
const LONG_MAX_D = 2 ** 63;
const INT_MIN_D = -(2 ** 31);
const INT_MAX_D = 2 ** 31 - 1;

/** True when a long value needs its text: beyond 2^53 a double no longer holds every integer. */
export function needsRawLongText(value: unknown): boolean {
  return typeof value === 'number' && Math.abs(value) >= 2 ** 53;
}

const isIntegerLiteral = (text: string) => /^-?\d+$/.test(text);

/**
 * Integer fields on a JSON number (ES NumberFieldMapper → XContentParser → Jackson): long uses
 * `getLongValue`, integer `getIntValue`, short `getShortValue`, byte `intValue` plus its own range check.
 * An integer literal is compared exactly; a fractional one as a double against Jackson's double bounds,
 * then truncated. Jackson's InputCoercionException reaches the client as `x_content_parse_exception`
 * (JsonXContentParser#newXContentParseException), prefixed with the token end.
 */
export function checkRawInteger(
  type: 'byte' | 'short' | 'integer' | 'long',
  value: number,
  raw: RawNumber,
): { ok: true } | { ok: false; cause: EsCause } {
  const exact = isIntegerLiteral(raw.text) ? BigInt(raw.text) : undefined;
  if (type === 'long') {
    const outside =
      exact !== undefined
        ? exact < LONG_MIN || exact > LONG_MAX
        : !(value >= LONG_MIN_D && value <= LONG_MAX_D);
    return outside ? jackson(raw, 'long (-9223372036854775808 - 9223372036854775807)') : { ok: true };
  }
  const intOutside =
    exact !== undefined ? exact < INT_MIN || exact > INT_MAX : !(value >= INT_MIN_D && value <= INT_MAX_D);
  if (intOutside) return jackson(raw, 'int (-2147483648 - 2147483647)');
  const n = Math.trunc(value) + 0; // (int) cast; + 0 turns -0 into 0
  if (type === 'short' && (n < -32768 || n > 32767)) return jackson(raw, 'Java short');
  if (type === 'byte' && (n < -128 || n > 127)) {
    return {
      ok: false,
      cause: { type: 'illegal_argument_exception', reason: `Value [${n}] is out of range for a byte` },
    };
  }
  return { ok: true };
}

function jackson(raw: RawNumber, target: string): { ok: false; cause: EsCause } {
  // Jackson `_longIntegerDesc`: from 1000 characters on the number is described, not printed.
  const digits = raw.text.replace(/^-/, '').length;
  const shown = raw.text.length < 1000 ? raw.text : `[Integer with ${digits} digits]`;
  return {
    ok: false,
    cause: {
      type: 'x_content_parse_exception',
      reason: `[${raw.line}:${raw.col}] Numeric value (${shown}) out of range of ${target}\n at [Source: REDACTED (\`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION\` disabled); line: ${raw.line}, column: ${raw.col}]`,
    },
  };
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
  if (isIntegerLiteral(rawText)) return BigInt(rawText).toString();
  return javaDoubleToString(Number(rawText));
}

export function javaDoubleToString(n: number): string {
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
