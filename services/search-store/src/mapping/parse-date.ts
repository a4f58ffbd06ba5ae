import { newDictionary, ownValue } from '@acme/common';

/**
 * Date parsing for `date` fields (ES "Mapping date format"): `format` is one or more formats joined by
 * `||`, tried in order. Named formats cover the built-ins Elasticsearch documents most; anything else
 * is read as a java.time pattern (yyyy, MM, dd, HH, mm, ss, SSS, 'literals', X/Z zones). Returns epoch
 * milliseconds or undefined when no format accepts the value. Pure; no I/O.
 */
export function parseDate(value: string | number, format: string): number | undefined {
  for (const one of format.split('||')) {
    const millis = parseWithFormat(value, one.trim());
    if (millis !== undefined) return millis;
  }
  return undefined;
}

function parseWithFormat(value: string | number, format: string): number | undefined {
  if (format === 'epoch_millis' || format === 'epoch_second') {
    const text = typeof value === 'number' ? String(value) : value;
    if (!/^-?\d+(\.\d+)?$/.test(text)) return undefined;
    const n = Number(text);
    return Math.trunc(format === 'epoch_second' ? n * 1000 : n);
  }
  if (typeof value === 'number') return undefined;
  const iso = ownValue(ISO_FORMATS, format);
  if (iso) return parseIso(value, iso);
  return parsePattern(value, format);
}

interface IsoRule {
  /** strict_* formats need 4-digit years and 2-digit fields. */
  strict: boolean;
  /** the minimum precision: date, date+time, … */
  needsTime: boolean;
  timeOnly?: boolean;
}

const ISO_FORMATS: Record<string, IsoRule> = {
  strict_date_optional_time: { strict: true, needsTime: false },
  date_optional_time: { strict: false, needsTime: false },
  strict_date_optional_time_nanos: { strict: true, needsTime: false },
  strict_date: { strict: true, needsTime: false },
  date: { strict: false, needsTime: false },
  yyyy_MM_dd: { strict: true, needsTime: false },
  strict_date_time: { strict: true, needsTime: true },
  date_time: { strict: false, needsTime: true },
  strict_date_hour_minute_second: { strict: true, needsTime: true },
  date_hour_minute_second: { strict: false, needsTime: true },
};

const ISO =
  /^(\d{4,9})(?:-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function parseIso(value: string, rule: IsoRule): number | undefined {
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (rule.strict && [mo, d, h, mi, s].some((part) => part !== undefined && part.length !== 2))
    return undefined;
  if (rule.needsTime && h === undefined) return undefined;
  if (zone !== undefined && h === undefined) return undefined;
  return toMillis(
    Number(y),
    Number(mo ?? 1),
    Number(d ?? 1),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
    Number((frac ?? '0').padEnd(3, '0').slice(0, 3)),
    zone,
  );
}

function toMillis(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
  zone: string | undefined,
): number | undefined {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCDate() !== day) return undefined; // 2023-02-30
  return utc - zoneOffsetMillis(zone);
}

function zoneOffsetMillis(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === '-' ? -1 : 1) * minutes * 60_000;
}

const PATTERN_PARTS: Record<string, { regex: string; key: string }> = {
  yyyy: { regex: '(\\d{4})', key: 'y' },
  uuuu: { regex: '(\\d{4})', key: 'y' },
  yy: { regex: '(\\d{2})', key: 'yy' },
  MM: { regex: '(\\d{2})', key: 'M' },
  M: { regex: '(\\d{1,2})', key: 'M' },
  dd: { regex: '(\\d{2})', key: 'd' },
  d: { regex: '(\\d{1,2})', key: 'd' },
  HH: { regex: '(\\d{2})', key: 'H' },
  H: { regex: '(\\d{1,2})', key: 'H' },
  mm: { regex: '(\\d{2})', key: 'm' },
  ss: { regex: '(\\d{2})', key: 's' },
  SSS: { regex: '(\\d{3})', key: 'S' },
  Z: { regex: '([+-]\\d{4}|Z)', key: 'z' },
  XXX: { regex: '(Z|[+-]\\d{2}:\\d{2})', key: 'z' },
  XX: { regex: '(Z|[+-]\\d{4})', key: 'z' },
  X: { regex: '(Z|[+-]\\d{2})', key: 'z' },
};
const TOKEN = /'([^']*)'|(yyyy|uuuu|yy|MM|M|dd|d|HH|H|mm|ss|SSS|XXX|XX|X|Z)|([^'a-zA-Z]+)|([a-zA-Z])/g;

/** A java.time pattern such as `yyyy/MM/dd HH:mm:ss` or `dd-MM-yyyy'T'HH:mm`. */
function parsePattern(value: string, pattern: string): number | undefined {
  let regex = '^';
  const keys: string[] = [];
  for (const m of pattern.matchAll(TOKEN)) {
    if (m[1] !== undefined) regex += escape(m[1]);
    else if (m[2] !== undefined) {
      const part = PATTERN_PARTS[m[2]];
      if (!part) return undefined;
      regex += part.regex;
      keys.push(part.key);
    } else if (m[3] !== undefined) regex += escape(m[3]);
    else return undefined; // a letter we do not support: no match rather than a wrong date
  }
  const match = new RegExp(`${regex}$`).exec(value);
  if (!match) return undefined;
  const parts = newDictionary<string>();
  keys.forEach((key, i) => (parts[key] = match[i + 1] ?? ''));
  const year =
    parts.y !== undefined ? Number(parts.y) : parts.yy !== undefined ? 2000 + Number(parts.yy) : 1970;
  return toMillis(
    year,
    Number(parts.M ?? 1),
    Number(parts.d ?? 1),
    Number(parts.H ?? 0),
    Number(parts.m ?? 0),
    Number(parts.s ?? 0),
    Number(parts.S ?? 0),
    parts.z === undefined ? undefined : normaliseZone(parts.z),
  );
}

function normaliseZone(zone: string): string {
  return zone.length === 5 && zone !== 'Z' ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True when `format` is one Elasticsearch would accept in a mapping (all alternatives known or patterns). */
export function isKnownDateFormat(format: string): boolean {
  return format.split('||').every((one) => {
    const f = one.trim();
    // The format is the user's: `constructor` must not find Object.prototype's member.
    if (f === 'epoch_millis' || f === 'epoch_second' || ownValue(ISO_FORMATS, f)) return true;
    if (/^[a-z_]+$/.test(f)) return false; // an unknown named format
    return [...f.matchAll(TOKEN)].every((m) => m[4] === undefined);
  });
}
