import {
  DEFAULT_DATE_NANOS_FORMAT,
  formatDateNanos,
  instantString,
  parseDateNanos,
} from '../../src/mapping/date-nanos';

describe('date_nanos values', () => {
  it.each([
    ['2018-10-29T12:12:12.123456789Z', 1540815132123456789n],
    ['2018-10-29T12:12:12.1Z', 1540815132100000000n],
    ['2018-10-29', 1540771200000000000n],
    ['1540815132123.456789', 1540815132123456789n],
    [1540815132123, 1540815132123000000n],
    ['1970-01-01T00:00:00Z', 0n],
    ['2262-04-11T23:47:16.854775807Z', 2n ** 63n - 1n],
  ])('reads %j as %s ns', (value, nanos) => {
    expect(parseDateNanos(value, DEFAULT_DATE_NANOS_FORMAT)).toEqual({ ok: true, nanos });
  });

  it('refuses instants outside a long of nanoseconds and text no format reads', () => {
    expect(parseDateNanos('1969-12-31T23:59:59.999Z', DEFAULT_DATE_NANOS_FORMAT)).toEqual({
      ok: false,
      kind: 'range',
      reason:
        'date[1969-12-31T23:59:59.999Z] is before the epoch in 1970 and cannot be stored in nanosecond resolution',
    });
    expect(parseDateNanos('soon', DEFAULT_DATE_NANOS_FORMAT)).toEqual({ ok: false, kind: 'format' });
  });

  it('prints instants as Java and dates as strict_date_optional_time_nanos', () => {
    expect(instantString(-1n)).toBe('1969-12-31T23:59:59.999999999Z');
    expect(instantString(-1_000_000_000n)).toBe('1969-12-31T23:59:59Z');
    expect(instantString(1_500_000n)).toBe('1970-01-01T00:00:00.001500Z');
    expect(formatDateNanos(1540815132123456789n)).toBe('2018-10-29T12:12:12.123456789Z');
    expect(formatDateNanos(1540815132120000000n)).toBe('2018-10-29T12:12:12.120Z');
    expect(formatDateNanos(1540815132123450000n)).toBe('2018-10-29T12:12:12.12345Z');
  });
});
