/**
 * Renders a number with a java.text.DecimalFormat pattern, as Elasticsearch's DocValueFormat.Decimal
 * does for `format` ("0.00", "#,##0.0", "#.##", "0"): grouping, minimum and maximum fraction digits,
 * minimum integer digits, a literal prefix and suffix. HALF_EVEN rounding, as DecimalFormat's default.
 */
export function formatDecimal(pattern: string, value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '∞' : value < 0 ? '-∞' : 'NaN';
  const m = /^([^#0,.]*)([#0,]*)(?:\.([#0]*))?(.*)$/.exec(pattern.split(';')[0] ?? '');
  if (!m) return String(value);
  const [, prefix = '', intPart = '', fracPart = '', suffix = ''] = m;
  const minFrac = (fracPart.match(/0/g) ?? []).length;
  const maxFrac = fracPart.length;
  const minInt = (intPart.match(/0/g) ?? []).length;
  const groupAt = intPart.lastIndexOf(',');
  const grouping = groupAt >= 0 ? intPart.length - groupAt - 1 : 0;
  const rounded = roundHalfEven(Math.abs(value), maxFrac);
  let [int = '0', frac = ''] = rounded.split('.');
  frac = frac.replace(/0+$/, '');
  while (frac.length < minFrac) frac += '0';
  if (int === '0' && minInt === 0) int = '';
  while (int.length < minInt) int = `0${int}`;
  if (grouping > 0) int = int.replace(new RegExp(`\\B(?=(\\d{${grouping}})+(?!\\d))`, 'g'), ',');
  const body = frac.length > 0 ? `${int}.${frac}` : int === '' ? '0' : int;
  const negative = value < 0 && /[1-9]/.test(body);
  return `${negative ? '-' : ''}${prefix}${body}${suffix}`;
}

function roundHalfEven(x: number, digits: number): string {
  const fixed = x.toFixed(Math.min(digits + 2, 20));
  const scale = 10 ** digits;
  const scaled = x * scale;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  let n: number;
  if (Math.abs(diff - 0.5) < 1e-9 && Number(fixed) === x) n = floor % 2 === 0 ? floor : floor + 1;
  else n = Math.round(scaled);
  return (n / scale).toFixed(digits);
}
