import { checkFieldValue } from '../../src/mapping/check-field-value';
import type { FieldMapping } from '../../src/mapping/mapping-types';

describe('checkFieldValue (ES field types, API-NOTES §A1.4)', () => {
  const ok: [FieldMapping, unknown][] = [
    [{ type: 'byte' }, 127],
    [{ type: 'byte' }, -128],
    [{ type: 'byte' }, '12'],
    [{ type: 'byte' }, 127.9],
    [{ type: 'short' }, 32767],
    [{ type: 'integer' }, 2147483647],
    [{ type: 'long' }, -9007199254740991],
    [{ type: 'long' }, '42'],
    [{ type: 'float' }, 1.5],
    [{ type: 'double' }, '1e300'],
    [{ type: 'boolean' }, true],
    [{ type: 'boolean' }, 'false'],
    [{ type: 'boolean' }, ''],
    [{ type: 'date' }, '2024-01-31'],
    [{ type: 'date' }, '2024-01-31T10:11:12.123Z'],
    [{ type: 'date' }, 1700000000000],
    [{ type: 'date', format: 'yyyy/MM/dd||epoch_millis' }, '2024/02/29'],
    [{ type: 'binary' }, 'aGVsbG8='],
    [{ type: 'keyword' }, 12],
    [{ type: 'text' }, false],
  ];
  it.each(ok)('accepts %j value %j', (field, value) => {
    expect(checkFieldValue(field, value)).toEqual({ ok: true });
  });

  const rejected: [FieldMapping, unknown, string, string][] = [
    [{ type: 'byte' }, 128, 'illegal_argument_exception', 'Value [128] is out of range for a byte'],
    [{ type: 'byte' }, 128.5, 'illegal_argument_exception', 'Value [128.5] is out of range for a byte'],
    [{ type: 'byte' }, -129, 'illegal_argument_exception', 'Value [-129] is out of range for a byte'],
    [{ type: 'short' }, 32768, 'illegal_argument_exception', 'Value [32768] is out of range for a short'],
    [
      { type: 'integer' },
      2147483648,
      'illegal_argument_exception',
      'Value [2147483648] is out of range for an integer',
    ],
    [
      { type: 'long' },
      '9223372036854775808',
      'illegal_argument_exception',
      'Value [9223372036854775808] is out of range for a long',
    ],
    [{ type: 'long' }, 'abc', 'number_format_exception', 'For input string: "abc"'],
    [
      { type: 'float' },
      '1e39',
      'illegal_argument_exception',
      '[float] supports only finite values, but got [1e39]',
    ],
    [
      { type: 'double' },
      'NaN',
      'illegal_argument_exception',
      '[double] supports only finite values, but got [NaN]',
    ],
    [
      { type: 'boolean' },
      'yes',
      'illegal_argument_exception',
      'Failed to parse value [yes] as only [true] or [false] are allowed.',
    ],
    [
      { type: 'boolean' },
      1,
      'illegal_argument_exception',
      'Failed to parse value [1] as only [true] or [false] are allowed.',
    ],
    [
      { type: 'date' },
      'not a date',
      'illegal_argument_exception',
      'failed to parse date field [not a date] with format [strict_date_optional_time||epoch_millis]',
    ],
    [
      { type: 'date', format: 'yyyy-MM-dd' },
      '2023-02-30',
      'illegal_argument_exception',
      'failed to parse date field [2023-02-30] with format [yyyy-MM-dd]',
    ],
    [
      { type: 'binary' },
      'not base64!',
      'illegal_argument_exception',
      'failed to decode base64 value [not base64!]',
    ],
  ];
  it.each(rejected)('rejects %j value %j with %s', (field, value, type, reason) => {
    const result = checkFieldValue(field, value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.cause).toMatchObject({ type, reason });
  });
});
