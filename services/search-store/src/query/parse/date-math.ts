import { EsError } from '@acme/common';
import { DEFAULT_DATE_FORMAT, parseDateValue } from '../../index/date-value';
import { ShardQueryError } from '../shard-query-error';

/**
 * Elasticsearch date math (`now-1d/d`, `2024-01-01||+1M/d`), resolved to epoch ms. Rounding goes down,
 * or up to the last millisecond of the unit when `roundUp` (range `gt` and `lte`, per the ES docs
 * "Date math and rounding"). Time zones are fixed offsets (`+01:00`) or UTC.
 */
const UNIT = /^([yMwdhHms])/;

export function resolveDateMath(
  expression: string | number,
  options: { now: number; format?: string; roundUp: boolean; timeZone?: string },
): number {
  const offsetMs = parseTimeZone(options.timeZone);
  if (typeof expression === 'number') return Math.trunc(expression);
  let anchor: number;
  let math: string;
  if (expression.startsWith('now')) {
    anchor = options.now;
    math = expression.slice(3);
  } else {
    const split = expression.indexOf('||');
    const datePart = split < 0 ? expression : expression.slice(0, split);
    math = split < 0 ? '' : expression.slice(split + 2);
    const parsed = parseDateValue(datePart, options.format ?? DEFAULT_DATE_FORMAT);
    if (parsed === undefined) {
      throw new ShardQueryError({
        type: 'parse_exception',
        reason: `failed to parse date field [${datePart}] with format [${options.format ?? DEFAULT_DATE_FORMAT}]`,
      });
    }
    // A date without a zone is read in the query's time_zone.
    anchor = hasZone(datePart) ? parsed : parsed - offsetMs;
  }
  let i = 0;
  let value = anchor;
  while (i < math.length) {
    const op = math[i]!;
    i += 1;
    if (op === '/') {
      const unit = UNIT.exec(math.slice(i))?.[1];
      if (!unit) throw mathError(expression);
      i += 1;
      value = round(value, unit, options.roundUp, offsetMs);
      continue;
    }
    if (op !== '+' && op !== '-') throw mathError(expression);
    const m = /^(\d*)([yMwdhHms])/.exec(math.slice(i));
    if (!m) throw mathError(expression);
    i += m[0].length;
    const amount = (m[1] === '' ? 1 : Number(m[1])) * (op === '-' ? -1 : 1);
    value = add(value, amount, m[2]!, offsetMs);
  }
  return value;
}

function mathError(expression: string): EsError {
  return new EsError('illegal_argument_exception', `operation [${expression}] is not supported`);
}

function hasZone(date: string): boolean {
  return /(Z|[+-]\d{2}:?\d{2})$/.test(date) || /^-?\d+$/.test(date);
}

function parseTimeZone(zone: string | undefined): number {
  if (!zone || zone === 'UTC' || zone === 'Z' || zone === 'Etc/UTC' || zone === 'GMT') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m)
    throw new EsError(
      'illegal_argument_exception',
      `unsupported time_zone [${zone}]: use a fixed offset such as +01:00`,
    );
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
}

function add(ms: number, amount: number, unit: string, offsetMs: number): number {
  const local = new Date(ms + offsetMs);
  switch (unit) {
    case 'y':
      local.setUTCFullYear(local.getUTCFullYear() + amount);
      return local.getTime() - offsetMs;
    case 'M':
      local.setUTCMonth(local.getUTCMonth() + amount);
      return local.getTime() - offsetMs;
    case 'w':
      return ms + amount * 7 * 86_400_000;
    case 'd':
      return ms + amount * 86_400_000;
    case 'h':
    case 'H':
      return ms + amount * 3_600_000;
    case 'm':
      return ms + amount * 60_000;
    default:
      return ms + amount * 1000;
  }
}

function round(ms: number, unit: string, up: boolean, offsetMs: number): number {
  const d = new Date(ms + offsetMs);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const day = d.getUTCDate();
  let start: number;
  let next: number;
  switch (unit) {
    case 'y':
      start = Date.UTC(y, 0, 1);
      next = Date.UTC(y + 1, 0, 1);
      break;
    case 'M':
      start = Date.UTC(y, mo, 1);
      next = Date.UTC(y, mo + 1, 1);
      break;
    case 'w': {
      const dow = (d.getUTCDay() + 6) % 7; // ISO weeks start on Monday
      start = Date.UTC(y, mo, day - dow);
      next = start + 7 * 86_400_000;
      break;
    }
    case 'd':
      start = Date.UTC(y, mo, day);
      next = start + 86_400_000;
      break;
    case 'h':
    case 'H':
      start = Date.UTC(y, mo, day, d.getUTCHours());
      next = start + 3_600_000;
      break;
    case 'm':
      start = Date.UTC(y, mo, day, d.getUTCHours(), d.getUTCMinutes());
      next = start + 60_000;
      break;
    default:
      start = Date.UTC(y, mo, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
      next = start + 1000;
  }
  return (up ? next - 1 : start) - offsetMs;
}
