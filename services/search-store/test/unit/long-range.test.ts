import { EsError } from '@acme/common';
import { locatorFor, rawNumberFor } from '../../src/http/locate-json-path';
import { checkFieldValue } from '../../src/mapping/check-field-value';
import { isDecimalOutsideLong, previewNumber } from '../../src/mapping/raw-number';
import { mapDocument } from '../../src/mapping/map-document';
import type { IndexMapping } from '../../src/mapping/mapping-types';

const LONG: IndexMapping = { properties: { n: { type: 'long' } } };

function run(mapping: IndexMapping, text: string) {
  return mapDocument(mapping, JSON.parse(text) as Record<string, unknown>, '7', locatorFor(text), {
    rawNumber: rawNumberFor(text),
  });
}

function errorOf(text: string): EsError {
  try {
    run(LONG, text);
  } catch (error) {
    if (error instanceof EsError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

const jackson = (n: string, line: number, col: number) =>
  `[${line}:${col}] Numeric value (${n}) out of range of long (-9223372036854775808 - 9223372036854775807)\n at [Source: REDACTED (\`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION\` disabled); line: ${line}, column: ${col}]`;

describe('long range on the number as written (ES LONG → Jackson getLongValue)', () => {
  it.each([
    '-9223372036854775808',
    '9223372036854775807',
    '-9223372036854775807',
    '0',
    '9.2e18',
    '-9.223372036854775808e18',
  ])('accepts %s, which JS doubles cannot all tell from their neighbours', (n) => {
    expect(run(LONG, `{"n":${n}}`).changed).toBe(false);
  });

  it.each([
    ['-9223372036854775809', 26],
    ['-9223372036854776000', 26],
    ['9223372036854775808', 25],
    ['18446744073709551615', 26],
  ])('refuses %s with the Jackson cause and the literal in the preview', (n, col) => {
    const error = errorOf(`{"n":${n}}`);
    expect(error.type).toBe('document_parsing_exception');
    expect(error.reason).toBe(
      `[1:6] failed to parse field [n] of type [long] in document with id '7'. Preview of field's value: '${n}'`,
    );
    expect(error.causedBy).toEqual({ type: 'x_content_parse_exception', reason: jackson(n, 1, col) });
  });

  it('refuses a fractional literal only outside [(double) Long.MIN_VALUE, (double) Long.MAX_VALUE]', () => {
    expect(run(LONG, '{"n":9223372036854775808.0}').changed).toBe(false); // == (double) Long.MAX_VALUE
    const error = errorOf('{\n  "n": 1e19\n}');
    expect(error.reason).toBe(
      `[2:8] failed to parse field [n] of type [long] in document with id '7'. Preview of field's value: '1.0E19'`,
    );
    expect(error.causedBy?.reason).toBe(jackson('1e19', 2, 12));
  });

  it('checks every value of an array and multi-fields on the same literal', () => {
    const error = errorOf('{"n":[1,-9223372036854775809]}');
    expect(error.reason).toMatch(/^\[1:9\] failed to parse field \[n\]/);
  });

  it('compares numeric strings exactly, as toLong does with BigDecimal', () => {
    const long = { type: 'long' as const };
    expect(checkFieldValue(long, '9223372036854775807')).toEqual({ ok: true });
    expect(checkFieldValue(long, '-9223372036854775808.9')).toEqual({ ok: true });
    expect(checkFieldValue(long, '-9223372036854775809')).toEqual({
      ok: false,
      cause: {
        type: 'illegal_argument_exception',
        reason: 'Value [-9223372036854775809] is out of range for a long',
      },
    });
    expect(checkFieldValue(long, '1e999999999')).toMatchObject({ ok: false });
    expect(isDecimalOutsideLong('9223372036854775808')).toBe(true);
    expect(isDecimalOutsideLong('0.00000000000000000000000001')).toBe(false);
    expect(isDecimalOutsideLong('abc')).toBeUndefined();
  });

  it('previews numbers as Jackson hands them to Java: integer digits, doubles in Double.toString form', () => {
    expect(previewNumber('-9223372036854775809')).toBe('-9223372036854775809');
    expect(previewNumber('10.0')).toBe('10.0');
    expect(previewNumber('1e19')).toBe('1.0E19');
    expect(previewNumber('0.0001')).toBe('1.0E-4');
    expect(previewNumber('123.5')).toBe('123.5');
  });

  it('maps a new number by its token: 1.0 and 1e3 become float, 1 becomes long', () => {
    expect(run({}, '{"a":1.0,"b":1e3,"c":1}').mapping.properties).toEqual({
      a: { type: 'float' },
      b: { type: 'float' },
      c: { type: 'long' },
    });
  });
});

describe('integer, short and byte on the number as written (ES NumberFieldMapperTests out-of-range specs)', () => {
  const SOURCE = (col: number) =>
    `\n at [Source: REDACTED (\`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION\` disabled); line: 1, column: ${col}]`;
  const causeOf = (type: 'integer' | 'short' | 'byte', n: string) => {
    try {
      run({ properties: { n: { type } } }, `{"n":${n}}`);
    } catch (error) {
      if (error instanceof EsError) return error.causedBy;
      throw error;
    }
    return undefined;
  };

  it('integer: Jackson "out of range of int" for literals past 2^31, fractions truncated inside', () => {
    expect(causeOf('integer', '2147483648')).toEqual({
      type: 'x_content_parse_exception',
      reason: `[1:16] Numeric value (2147483648) out of range of int (-2147483648 - 2147483647)${SOURCE(16)}`,
    });
    expect(causeOf('integer', '-2147483649')?.reason).toMatch(
      /^\[1:17\] Numeric value \(-2147483649\) out of range of int/,
    );
    expect(causeOf('integer', '2147483647.9')).toBeUndefined();
  });

  it('short: Jackson "out of range of Java short"; byte: ES "Value [n] is out of range for a byte" on the truncated int', () => {
    expect(causeOf('short', '32768')).toEqual({
      type: 'x_content_parse_exception',
      reason: `[1:11] Numeric value (32768) out of range of Java short${SOURCE(11)}`,
    });
    expect(causeOf('short', '3000000000')?.reason).toMatch(/out of range of int \(/);
    expect(causeOf('byte', '128.7')).toEqual({
      type: 'illegal_argument_exception',
      reason: 'Value [128] is out of range for a byte',
    });
    expect(causeOf('byte', '-129')).toEqual({
      type: 'illegal_argument_exception',
      reason: 'Value [-129] is out of range for a byte',
    });
    expect(causeOf('byte', '127.9')).toBeUndefined();
  });
});
