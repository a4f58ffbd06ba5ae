import { EsError } from '@acme/common';

/** Checks a `time_zone` parameter: an IANA id or a fixed offset (+01:00), as Elasticsearch accepts. */
export function checkTimeZone(tz: string | undefined): string {
  if (tz === undefined) return 'UTC';
  if (/^[+-]\d{2}:?\d{2}$/.test(tz) || tz === 'Z') return tz;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    throw new EsError('illegal_argument_exception', `Unknown time-zone ID: ${tz}`);
  }
}

/** Minutes east of UTC for `tz` at `millis`. */
export function zoneOffsetMinutes(tz: string, millis: number): number {
  if (tz === 'UTC' || tz === 'Z') return 0;
  const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  const name = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })
    .formatToParts(new Date(millis))
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? '');
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

const NAMED: Record<string, string> = {
  strict_date_optional_time: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  date_optional_time: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  strict_date_time: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  date_time: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  strict_date_optional_time_nanos: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
  strict_date: 'yyyy-MM-dd',
  date: 'yyyy-MM-dd',
  basic_date: 'yyyyMMdd',
  strict_year_month: 'yyyy-MM',
  year_month: 'yyyy-MM',
  strict_year: 'yyyy',
  year: 'yyyy',
  strict_date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
};

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/**
 * Formats epoch millis as Elasticsearch's DateFormatter prints `key_as_string` / `value_as_string`:
 * the first of `a||b` formats, named formats, or a Java pattern (yyyy MM dd HH mm ss SSS XXX 'lit').
 */
export function formatDate(millis: number, format = 'strict_date_optional_time', tz = 'UTC'): string {
  const first = format.split('||')[0] as string;
  if (first === 'epoch_millis') return String(millis);
  if (first === 'epoch_second') return String(Math.floor(millis / 1000));
  const pattern = Object.hasOwn(NAMED, first) ? (NAMED[first] as string) : first;
  const offset = zoneOffsetMinutes(tz, millis);
  const d = new Date(millis + offset * 60_000);
  let out = '';
  for (let i = 0; i < pattern.length;) {
    const ch = pattern[i] as string;
    if (ch === "'") {
      const end = pattern.indexOf("'", i + 1);
      out += pattern.slice(i + 1, end < 0 ? pattern.length : end);
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    let run = 1;
    while (pattern[i + run] === ch) run += 1;
    switch (ch) {
      case 'y':
      case 'u':
        out += run === 2 ? pad(d.getUTCFullYear() % 100, 2) : pad(d.getUTCFullYear(), 4);
        break;
      case 'M':
        out += pad(d.getUTCMonth() + 1, run);
        break;
      case 'd':
        out += pad(d.getUTCDate(), run);
        break;
      case 'H':
        out += pad(d.getUTCHours(), run);
        break;
      case 'm':
        out += pad(d.getUTCMinutes(), run);
        break;
      case 's':
        out += pad(d.getUTCSeconds(), run);
        break;
      case 'S':
        out += pad(d.getUTCMilliseconds(), 3).slice(0, run);
        break;
      case 'X':
      case 'Z':
      case 'x': {
        if (offset === 0 && ch === 'X') out += 'Z';
        else {
          const sign = offset < 0 ? '-' : '+';
          const abs = Math.abs(offset);
          out += `${sign}${pad(Math.floor(abs / 60), 2)}${run >= 3 || ch === 'x' ? ':' : ''}${pad(abs % 60, 2)}`;
        }
        break;
      }
      default:
        out += ch.repeat(run);
    }
    i += run;
  }
  return out;
}

const DATE_MATH_UNITS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Parses a date bound: epoch millis, an ISO date, or `now` date math (`now-1d/d`). */
export function parseDateBound(v: number | string, now: number): number {
  if (typeof v === 'number') return v;
  const math = /^now((?:[+-]\d+[smhdwMy])*)(?:\/([smhdwMy]))?$/.exec(v);
  if (math) {
    let t = now;
    for (const [, sign, n, unit] of (math[1] as string).matchAll(/([+-])(\d+)([smhdwMy])/g)) {
      const amount = (sign === '-' ? -1 : 1) * Number(n);
      const date = new Date(t);
      if (unit === 'M') date.setUTCMonth(date.getUTCMonth() + amount);
      else if (unit === 'y') date.setUTCFullYear(date.getUTCFullYear() + amount);
      else date.setTime(t + amount * (DATE_MATH_UNITS[unit as string] as number));
      t = date.getTime();
    }
    if (math[2]) {
      const date = new Date(t);
      const unit = math[2];
      const ms = DATE_MATH_UNITS[unit];
      if (unit === 'M') t = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
      else if (unit === 'y') t = Date.UTC(date.getUTCFullYear(), 0, 1);
      else if (ms) t = Math.floor(t / ms) * ms;
    }
    return t;
  }
  if (/^-?\d+$/.test(v)) return Number(v);
  const parsed = Date.parse(/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v) ? `${v}Z` : v);
  if (Number.isNaN(parsed)) {
    throw new EsError(
      'illegal_argument_exception',
      `failed to parse date field [${v}] with format [strict_date_optional_time||epoch_millis]`,
    );
  }
  return parsed;
}
