import { newDictionary, ownValue } from '@acme/common';
import { parseDate } from '../mapping/parse-date';

/**
 * Dates as Elasticsearch reads them: a `format` list separated by `||` (default
 * `strict_date_optional_time||epoch_millis`), named formats and Java-style patterns (yyyy-MM-dd HH:mm:ss).
 * Values are epoch milliseconds in UTC; a string without a zone is UTC, as in Elasticsearch.
 */
export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const ISO =
  /^([+-]?\d{4,9})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function parseIso(value: string): number | undefined {
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (zone && h === undefined) return undefined;
  const ms = frac ? Number(frac.padEnd(3, '0').slice(0, 3)) : 0;
  const month = Number(mo ?? 1);
  const day = Number(d ?? 1);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    Number(h ?? 0) > 23 ||
    Number(mi ?? 0) > 59 ||
    Number(s ?? 0) > 59
  ) {
    return undefined;
  }
  const base = Date.UTC(Number(y), month - 1, day, Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms);
  const check = new Date(base);
  if (check.getUTCDate() !== day) return undefined; // 2023-02-30
  return base - zoneOffsetMs(zone);
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0)) * 60_000;
}

const PATTERN_TOKENS: Record<string, { re: string; field: string }> = {
  yyyy: { re: '(\\d{4})', field: 'y' },
  uuuu: { re: '(\\d{4})', field: 'y' },
  yy: { re: '(\\d{2})', field: 'yy' },
  MM: { re: '(\\d{2})', field: 'M' },
  M: { re: '(\\d{1,2})', field: 'M' },
  dd: { re: '(\\d{2})', field: 'd' },
  d: { re: '(\\d{1,2})', field: 'd' },
  HH: { re: '(\\d{2})', field: 'H' },
  H: { re: '(\\d{1,2})', field: 'H' },
  mm: { re: '(\\d{2})', field: 'm' },
  ss: { re: '(\\d{2})', field: 's' },
  SSS: { re: '(\\d{3})', field: 'S' },
  XXX: { re: '(Z|[+-]\\d{2}:\\d{2})', field: 'z' },
  Z: { re: '([+-]\\d{4})', field: 'z' },
};

/** Compiles a Java DateTimeFormatter pattern (the common letters) into a parser. */
function compilePattern(pattern: string): (value: string) => number | undefined {
  const fields: string[] = [];
  let re = '^';
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] === "'") {
      const end = pattern.indexOf("'", i + 1);
      const literal = pattern.slice(i + 1, end < 0 ? undefined : end);
      re += literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    const token = ['yyyy', 'uuuu', 'SSS', 'XXX', 'yy', 'MM', 'dd', 'HH', 'mm', 'ss', 'M', 'd', 'H', 'Z'].find(
      (t) => pattern.startsWith(t, i),
    );
    if (token) {
      re += PATTERN_TOKENS[token]!.re;
      fields.push(PATTERN_TOKENS[token]!.field);
      i += token.length;
    } else {
      re += pattern[i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  const regex = new RegExp(`${re}$`);
  return (value) => {
    const m = regex.exec(value);
    if (!m) return undefined;
    const parts = newDictionary<string>();
    fields.forEach((field, k) => (parts[field] = m[k + 1]!));
    const year =
      parts.y !== undefined ? Number(parts.y) : parts.yy !== undefined ? 2000 + Number(parts.yy) : 1970;
    const month = Number(parts.M ?? 1);
    const day = Number(parts.d ?? 1);
    const ms = Date.UTC(
      year,
      month - 1,
      day,
      Number(parts.H ?? 0),
      Number(parts.m ?? 0),
      Number(parts.s ?? 0),
      Number(parts.S ?? 0),
    );
    if (month < 1 || month > 12 || new Date(ms).getUTCDate() !== day) return undefined;
    return ms - zoneOffsetMs(parts.z);
  };
}

const NAMED: Record<string, (value: string) => number | undefined> = {
  strict_date_optional_time: parseIso,
  date_optional_time: parseIso,
  strict_date_optional_time_nanos: parseIso,
  strict_date_time: parseIso,
  date_time: parseIso,
  strict_date: compilePattern('yyyy-MM-dd'),
  date: compilePattern('yyyy-MM-dd'),
  basic_date: compilePattern('yyyyMMdd'),
  year_month_day: compilePattern('yyyy-MM-dd'),
  year_month: compilePattern('yyyy-MM'),
  year: compilePattern('yyyy'),
  strict_year: compilePattern('yyyy'),
  epoch_millis: (v) => (/^-?\d+(\.\d+)?$/.test(v) ? Math.trunc(Number(v)) : undefined),
  epoch_second: (v) => (/^-?\d+(\.\d+)?$/.test(v) ? Math.trunc(Number(v) * 1000) : undefined),
};

const cache = new Map<string, ((value: string) => number | undefined)[]>();

function parsersFor(format: string): ((value: string) => number | undefined)[] {
  let parsers = cache.get(format);
  if (!parsers) {
    parsers = format.split('||').map((f) => ownValue(NAMED, f.trim()) ?? compilePattern(f.trim()));
    cache.set(format, parsers);
  }
  return parsers;
}

/**
 * Epoch ms for a date value, through the document store's parser (the one that validated the document),
 * so doc values always agree with what indexing accepted; date math in queries uses the parsers above.
 */
export function parseDateValue(value: unknown, format = DEFAULT_DATE_FORMAT): number | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  return parseDate(value, format) ?? parseOwn(value, format);
}

function parseOwn(value: string | number, format: string): number | undefined {
  if (typeof value === 'number') return Math.trunc(value);
  for (const parse of parsersFor(format)) {
    const ms = parse(value);
    if (ms !== undefined && Number.isFinite(ms)) return ms;
  }
  return undefined;
}

/** The date as strict_date_optional_time prints it (what `fields` returns for a date field). */
export function formatDateValue(ms: number): string {
  return new Date(ms).toISOString();
}
