import { EsError } from '@acme/common';
import { checkTimeZone, formatDate, parseDateBound } from '../../src/aggs/format-date';

const T = Date.UTC(2020, 0, 2, 3, 4, 5, 6);

describe('formatDate', () => {
  test.each<[string | undefined, string | undefined, string]>([
    [undefined, undefined, '2020-01-02T03:04:05.006Z'],
    ['strict_date_optional_time||epoch_millis', 'UTC', '2020-01-02T03:04:05.006Z'],
    [undefined, '+01:00', '2020-01-02T04:04:05.006+01:00'],
    [undefined, '-0530', '2020-01-01T21:34:05.006-05:30'],
    [undefined, 'America/New_York', '2020-01-01T22:04:05.006-05:00'],
    ['yyyy-MM-dd', 'UTC', '2020-01-02'],
    ["yyyy/MM/dd HH:mm:ss 'at' SSS", 'UTC', '2020/01/02 03:04:05 at 006'],
    ['epoch_millis', 'UTC', String(T)],
    ['epoch_second', 'UTC', String(Math.floor(T / 1000))],
    ['date', 'Europe/Paris', '2020-01-02'],
  ])('format %s in %s → %s', (format, tz, expected) => {
    expect(formatDate(T, format, tz)).toBe(expected);
  });
});

describe('parseDateBound', () => {
  const now = Date.UTC(2021, 5, 15, 12, 30);
  test.each<[number | string, number]>([
    [1000, 1000],
    ['1000', 1000],
    ['2020-01-02', Date.UTC(2020, 0, 2)],
    ['2020-01-02T03:04:05', Date.UTC(2020, 0, 2, 3, 4, 5)],
    ['now', now],
    ['now-1d', now - 86_400_000],
    ['now-1d/d', Date.UTC(2021, 5, 14)],
    ['now+1M/M', Date.UTC(2021, 6, 1)],
    ['now/y', Date.UTC(2021, 0, 1)],
  ])('%s → %d', (input, expected) => {
    expect(parseDateBound(input, now)).toBe(expected);
  });

  test('an unparseable date is an illegal_argument_exception', () => {
    expect(() => parseDateBound('yesterday-ish', now)).toThrow(EsError);
  });
});

test('an unknown time zone is refused as Elasticsearch refuses it', () => {
  expect(() => checkTimeZone('Mars/Olympus')).toThrow('Unknown time-zone ID: Mars/Olympus');
  expect(checkTimeZone('Europe/Paris')).toBe('Europe/Paris');
});
