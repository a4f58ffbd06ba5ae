/**
 * A time zone's offset at an instant, in Node, for date_histogram's calendar intervals over the
 * columns: the SQL path truncates `to_timestamp(v) AT TIME ZONE zone` in Postgres, so the columnar path
 * needs the same local time for every value without a statement per value. Offsets come from ICU
 * (Intl) and are cached per UTC day; a day whose two ends differ holds a transition, found by
 * bisection to the millisecond. Every offset used is remembered (`samples`) so that the caller can
 * check it against Postgres's own zone rules (two tzdata copies may differ on old dates) and take the
 * SQL path where they disagree.
 */
const DAY = 86_400_000;

/** How many day entries a zone keeps at most (then it starts over: memory stays bounded). */
const MAX_DAYS = 200_000;

type DayEntry = { before: number; after: number; at: number };

export class ZoneOffsets {
  private readonly fixed: number | undefined;
  private readonly format: Intl.DateTimeFormat | undefined;
  private readonly days = new Map<number, DayEntry>();
  private readonly checked = new Map<number, number>();

  /** `tz` as checkTimeZone returns it: 'UTC', 'Z', ±HH:MM / ±HHMM, or an IANA id. */
  constructor(tz: string) {
    const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
    if (tz === 'UTC' || tz === 'Z') this.fixed = 0;
    else if (fixed)
      this.fixed = (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3])) * 60_000;
    else
      this.format = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
  }

  /** True when the offsets are ICU's (an IANA zone), to be checked against Postgres. */
  get needsCheck(): boolean {
    return this.fixed === undefined;
  }

  /** Milliseconds to add to the instant `millis` for the zone's local time. */
  offsetAt(millis: number): number {
    if (this.fixed !== undefined) return this.fixed;
    const day = Math.floor(millis / DAY);
    let entry = this.days.get(day);
    if (!entry) {
      if (this.days.size >= MAX_DAYS) this.days.clear();
      const start = day * DAY;
      const before = this.icuOffset(start);
      const after = this.icuOffset(start + DAY);
      let at = start + DAY;
      if (before !== after) {
        // The first millisecond with the new offset (one transition a day at most, as in tzdata).
        let lo = start;
        while (at - lo > 1) {
          const mid = Math.floor((lo + at) / 2);
          if (this.icuOffset(mid) === before) lo = mid;
          else at = mid;
        }
        this.remember(at - 1, before);
        this.remember(at, after);
      }
      entry = { before, after, at };
      this.days.set(day, entry);
    }
    return millis < entry.at ? entry.before : entry.after;
  }

  /** The instants looked up and their offsets (ms), to compare with Postgres's. */
  samples(): { at: number[]; offsets: number[] } {
    return { at: [...this.checked.keys()], offsets: [...this.checked.values()] };
  }

  private remember(at: number, offset: number): void {
    if (this.checked.size < MAX_DAYS * 2) this.checked.set(at, offset);
  }

  private icuOffset(millis: number): number {
    const parts = (this.format as Intl.DateTimeFormat).formatToParts(new Date(millis));
    const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? NaN);
    const era = parts.find((p) => p.type === 'era')?.value;
    const year = era === 'BC' || era === 'B' ? 1 - get('year') : get('year');
    const local = Date.UTC(year, get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
    // Date.UTC maps years 0–99 to 1900–1999.
    const exact = year >= 0 && year < 100 ? new Date(local).setUTCFullYear(year) : local;
    const offset = exact - (millis - (((millis % 1000) + 1000) % 1000));
    this.remember(millis, offset);
    return offset;
  }
}
