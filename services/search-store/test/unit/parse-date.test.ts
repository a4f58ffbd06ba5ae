import { isKnownDateFormat, parseDate } from '../../src/mapping/parse-date';

describe('parseDate (ES mapping date formats)', () => {
  const cases: [string | number, string, number | undefined][] = [
    ['2024-01-02', 'strict_date_optional_time', Date.UTC(2024, 0, 2)],
    ['2024-01-02T03:04:05Z', 'strict_date_optional_time', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['2024-01-02T03:04:05.678+02:00', 'strict_date_optional_time', Date.UTC(2024, 0, 2, 1, 4, 5, 678)],
    ['2024-1-2', 'strict_date_optional_time', undefined],
    ['2024-1-2', 'date_optional_time', Date.UTC(2024, 0, 2)],
    ['1700000000000', 'epoch_millis', 1700000000000],
    [1700000000, 'epoch_second', 1700000000000],
    ['2024/01/02 03:04:05', 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd Z', Date.UTC(2024, 0, 2, 3, 4, 5)],
    ['02-01-2024', 'dd-MM-yyyy', Date.UTC(2024, 0, 2)],
    ['2024-13-01', 'yyyy-MM-dd', undefined],
    ['x', 'strict_date_optional_time||epoch_millis', undefined],
    [1700000000000, 'strict_date_optional_time||epoch_millis', 1700000000000],
  ];
  it.each(cases)('parses %j with %s as %s', (value, format, expected) => {
    expect(parseDate(value, format)).toBe(expected);
  });

  it('knows built-in names and patterns but not made-up names', () => {
    expect(isKnownDateFormat('strict_date_optional_time||epoch_millis')).toBe(true);
    expect(isKnownDateFormat("yyyy-MM-dd'T'HH:mm")).toBe(true);
    expect(isKnownDateFormat('no_such_format')).toBe(false);
  });
});
