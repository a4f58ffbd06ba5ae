const UNITS = ['b', 'kb', 'mb', 'gb', 'tb', 'pb'] as const;
export type ByteUnit = (typeof UNITS)[number];

/**
 * ES ByteSizeValue#toString: the largest unit (base 1024) the value reaches, one decimal kept by
 * truncation and `.0` dropped (Strings#format1Decimals): 225b, 5.2kb, 3gb.
 */
export function formatBytes(bytes: number): string {
  let unit = 0;
  while (unit < UNITS.length - 1 && bytes >= 1024 ** (unit + 1)) unit += 1;
  if (unit === 0) return `${bytes}b`;
  const text = String(bytes / 1024 ** unit);
  const [whole, fraction = '0'] = text.split('.');
  const digit = fraction[0] ?? '0';
  return `${whole}${digit === '0' ? '' : `.${digit}`}${UNITS[unit]}`;
}

/** `bytes=b|kb|mb|…`: a whole number in that unit (truncated), as Elasticsearch prints it. */
export function bytesIn(bytes: number, unit: string): string | undefined {
  const index = UNITS.indexOf(unit as ByteUnit);
  if (index === -1) return undefined;
  return String(Math.floor(bytes / 1024 ** index));
}
