/** Only the start of a User-Agent is read: the names below appear early, and a huge header costs nothing. */
const MAX_USER_AGENT = 512;

/** First match wins: Edge and Opera say "Chrome" too, Chrome says "Safari", iOS says "like Mac OS X". */
const BROWSERS: readonly [string, readonly string[]][] = [
  ['Edge', ['Edg/', 'EdgA/', 'EdgiOS/']],
  ['Opera', ['OPR/', 'Opera']],
  ['Samsung Internet', ['SamsungBrowser/']],
  ['Firefox', ['Firefox/', 'FxiOS/']],
  ['Chrome', ['Chrome/', 'CriOS/', 'Chromium/']],
  ['Safari', ['Safari/']],
];
const SYSTEMS: readonly [string, readonly string[]][] = [
  ['Windows', ['Windows']],
  ['iOS', ['iPhone', 'iPad', 'iPod']],
  ['Android', ['Android']],
  ['ChromeOS', ['CrOS']],
  ['macOS', ['Macintosh', 'Mac OS X']],
  ['Linux', ['Linux']],
];

/**
 * A coarse description of a browser for the account page's sessions list ("Firefox · Linux"): enough for
 * a person to tell their laptop from their phone, not a fingerprint. Only this is stored, never the
 * header. Substring checks only (linear time); null when nothing is recognised.
 */
export function describeDevice(userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  const agent = userAgent.slice(0, MAX_USER_AGENT);
  const find = (table: readonly [string, readonly string[]][]) =>
    table.find(([, marks]) => marks.some((mark) => agent.includes(mark)))?.[0];
  const parts = [find(BROWSERS), find(SYSTEMS)].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(' · ') : null;
}
