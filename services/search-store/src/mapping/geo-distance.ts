/**
 * Distances between points as Elasticsearch computes them: `arc` is Lucene's SloppyMath.haversinMeters
 * (table-driven cos and asin, the same tables built from fdlibm's sin/cos/asin, which V8's Math uses
 * too), `plane` is GeoUtils.planeDistance; units are ES's DistanceUnit with its names and factors.
 * The same numbers as ES: sort values, the geo_distance query's edge and agg ranges agree with it.
 */

const TO_METERS = 6_371_008.7714;
const TO_RADIANS = Math.PI / 180;

// SloppyMath's tables (Lucene 9 SloppyMath: sin/cos with 2^11 steps, asin with 2^13 up to sin(73°)).
const bits = new Float64Array(1);
const words = new BigInt64Array(bits.buffer);
const fromBits = (b: bigint): number => {
  words[0] = BigInt.asIntN(64, b);
  return bits[0]!;
};
const PIO2_HI = fromBits(0x3ff921fb54400000n);
const PIO2_LO = fromBits(0x3dd0b4611a626331n);
const TWOPI_HI = 4 * PIO2_HI;
const TWOPI_LO = 4 * PIO2_LO;
const SIN_COS_TABS_SIZE = (1 << 11) + 1;
const SIN_COS_DELTA_HI = TWOPI_HI / (SIN_COS_TABS_SIZE - 1);
const SIN_COS_DELTA_LO = TWOPI_LO / (SIN_COS_TABS_SIZE - 1);
const SIN_COS_INDEXER = 1 / (SIN_COS_DELTA_HI + SIN_COS_DELTA_LO);
const SIN_COS_MAX_VALUE_FOR_INT_MODULO = ((0x7fffffff >> 9) / SIN_COS_INDEXER) * 0.99;
const ONE_DIV_F2 = 1 / 2.0;
const ONE_DIV_F3 = 1 / 6.0;
const ONE_DIV_F4 = 1 / 24.0;
const sinTab = new Float64Array(SIN_COS_TABS_SIZE);
const cosTab = new Float64Array(SIN_COS_TABS_SIZE);
const ASIN_MAX_VALUE_FOR_TABS = Math.sin(73.0 * TO_RADIANS);
const ASIN_TABS_SIZE = (1 << 13) + 1;
const ASIN_DELTA = ASIN_MAX_VALUE_FOR_TABS / (ASIN_TABS_SIZE - 1);
const ASIN_INDEXER = 1 / ASIN_DELTA;
const asinTab = new Float64Array(ASIN_TABS_SIZE);
const asinDer1 = new Float64Array(ASIN_TABS_SIZE);
const asinDer2 = new Float64Array(ASIN_TABS_SIZE);
const asinDer3 = new Float64Array(ASIN_TABS_SIZE);
const asinDer4 = new Float64Array(ASIN_TABS_SIZE);
const ASIN_PIO2_HI = fromBits(0x3ff921fb54442d18n);
const ASIN_PIO2_LO = fromBits(0x3c91a62633145c07n);
const ASIN_PS0 = fromBits(0x3fc5555555555555n);
const ASIN_PS1 = fromBits(0xbfd4d61203eb6f7dn);
const ASIN_PS2 = fromBits(0x3fc9c1550e884455n);
const ASIN_PS3 = fromBits(0xbfa48228b5688f3bn);
const ASIN_PS4 = fromBits(0x3f49efe07501b288n);
const ASIN_PS5 = fromBits(0x3f023de10dfdf709n);
const ASIN_QS1 = fromBits(0xc0033a271c8a2d4bn);
const ASIN_QS2 = fromBits(0x40002ae59c598ac8n);
const ASIN_QS3 = fromBits(0xbfe6066c1b8d0159n);
const ASIN_QS4 = fromBits(0x3fb3b8c5b12e9282n);

{
  const piIndex = (SIN_COS_TABS_SIZE - 1) / 2;
  for (let i = 0; i < SIN_COS_TABS_SIZE; i++) {
    const angle = i * SIN_COS_DELTA_HI + i * SIN_COS_DELTA_LO;
    let sin = Math.sin(angle);
    let cos = Math.cos(angle);
    if (i === piIndex || i === 2 * piIndex) sin = 0;
    else if (i === piIndex / 2 || i === (3 * piIndex) / 2) cos = 0;
    sinTab[i] = sin;
    cosTab[i] = cos;
  }
  for (let i = 0; i < ASIN_TABS_SIZE; i++) {
    const x = i * ASIN_DELTA;
    asinTab[i] = Math.asin(x);
    const inv = 1.0 / (1 - x * x);
    const inv05 = Math.sqrt(inv);
    const inv15 = inv05 * inv;
    const inv25 = inv15 * inv;
    const inv35 = inv25 * inv;
    asinDer1[i] = inv05;
    asinDer2[i] = x * inv15 * ONE_DIV_F2;
    asinDer3[i] = (1 + 2 * x * x) * inv25 * ONE_DIV_F3;
    asinDer4[i] = (5 + 2 * x * (2 + x * (5 - 2 * x))) * inv35 * ONE_DIV_F4;
  }
}

/** SloppyMath.cos. */
export function sloppyCos(angle: number): number {
  let a = angle < 0 ? -angle : angle;
  if (a > SIN_COS_MAX_VALUE_FOR_INT_MODULO) return Math.cos(a);
  let index = Math.trunc(a * SIN_COS_INDEXER + 0.5);
  const delta = a - index * SIN_COS_DELTA_HI - index * SIN_COS_DELTA_LO;
  index &= SIN_COS_TABS_SIZE - 2;
  const c = cosTab[index]!;
  const s = sinTab[index]!;
  a = delta;
  return c + a * (-s + a * (-c * ONE_DIV_F2 + a * (s * ONE_DIV_F3 + a * c * ONE_DIV_F4)));
}

/** SloppyMath.asin. */
export function sloppyAsin(value: number): number {
  const negate = value < 0;
  const a = negate ? -value : value;
  let result: number;
  if (a <= ASIN_MAX_VALUE_FOR_TABS) {
    const index = Math.trunc(a * ASIN_INDEXER + 0.5);
    const d = a - index * ASIN_DELTA;
    result =
      asinTab[index]! +
      d * (asinDer1[index]! + d * (asinDer2[index]! + d * (asinDer3[index]! + d * asinDer4[index]!)));
  } else if (a < 1.0) {
    const t = (1.0 - a) * 0.5;
    const p =
      t * (ASIN_PS0 + t * (ASIN_PS1 + t * (ASIN_PS2 + t * (ASIN_PS3 + t * (ASIN_PS4 + t * ASIN_PS5)))));
    const q = 1.0 + t * (ASIN_QS1 + t * (ASIN_QS2 + t * (ASIN_QS3 + t * ASIN_QS4)));
    const s = Math.sqrt(t);
    const z = s + s * (p / q);
    result = ASIN_PIO2_HI - (z + z - ASIN_PIO2_LO);
  } else if (a === 1.0) {
    result = Math.PI / 2;
  } else {
    return NaN;
  }
  return negate ? -result : result;
}

/** SloppyMath.haversinSortKey: compares as the distance does; the last 3 mantissa bits cleared. */
export function haversinSortKey(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const x1 = lat1 * TO_RADIANS;
  const x2 = lat2 * TO_RADIANS;
  const h1 = 1 - sloppyCos(x1 - x2);
  const h2 = 1 - sloppyCos((lon1 - lon2) * TO_RADIANS);
  bits[0] = h1 + sloppyCos(x1) * sloppyCos(x2) * h2;
  words[0] = words[0]! & ~7n;
  return bits[0]!;
}

/** SloppyMath.haversinMeters(sortKey). */
export function haversinMetersOfKey(sortKey: number): number {
  return TO_METERS * 2 * sloppyAsin(Math.min(1, Math.sqrt(sortKey * 0.5)));
}

export function arcDistanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return haversinMetersOfKey(haversinSortKey(lat1, lon1, lat2, lon2));
}

/** GeoUtils.planeDistance. */
export function planeDistanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const x = (lon2 - lon1) * TO_RADIANS * Math.cos(((lat2 + lat1) / 2.0) * TO_RADIANS);
  const y = (lat2 - lat1) * TO_RADIANS;
  return Math.sqrt(x * x + y * y) * TO_METERS;
}

/**
 * Lucene GeoUtils.distanceQuerySortKey: the smallest sort key whose distance is at least `radius`,
 * found by a binary search over the non-negative doubles' bit patterns (64 steps at most).
 */
export function distanceQuerySortKey(radius: number): number {
  const maxKey = Number.MAX_VALUE;
  if (radius >= haversinMetersOfKey(maxKey)) return haversinMetersOfKey(maxKey);
  bits[0] = maxKey;
  let hi = words[0]!;
  let lo = 0n;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1n;
    const key = fromBits(mid);
    const midRadius = haversinMetersOfKey(key);
    if (midRadius === radius) return key;
    if (midRadius > radius) hi = mid - 1n;
    else lo = mid + 1n;
  }
  return fromBits(lo);
}

export type DistanceType = 'arc' | 'plane';

export function distanceMeters(
  type: DistanceType,
  lat1: number,
  lon1: number,
  lat2: number,
  lon2: number,
): number {
  return type === 'plane'
    ? planeDistanceMeters(lat1, lon1, lat2, lon2)
    : arcDistanceMeters(lat1, lon1, lat2, lon2);
}

/** ES DistanceUnit, in its declaration order (parsing tries the suffixes in this order). */
const UNITS: { names: string[]; meters: number }[] = [
  { names: ['in', 'inch'], meters: 0.0254 },
  { names: ['yd', 'yards'], meters: 0.9144 },
  { names: ['ft', 'feet'], meters: 0.3048 },
  { names: ['km', 'kilometers'], meters: 1000.0 },
  { names: ['NM', 'nmi', 'nauticalmiles'], meters: 1852.0 },
  { names: ['mm', 'millimeters'], meters: 0.001 },
  { names: ['cm', 'centimeters'], meters: 0.01 },
  { names: ['mi', 'miles'], meters: 1609.344 },
  { names: ['m', 'meters'], meters: 1 },
];

export interface DistanceUnit {
  name: string;
  meters: number;
}

export const METERS: DistanceUnit = { name: 'm', meters: 1 };

/** DistanceUnit.fromString: a unit's name, else IllegalArgumentException "No distance unit match [x]". */
export function parseDistanceUnit(text: string): DistanceUnit {
  for (const unit of UNITS) {
    if (unit.names.includes(text)) return { name: unit.names[0]!, meters: unit.meters };
  }
  throw new DistanceError('illegal_argument_exception', `No distance unit match [${text}]`);
}

export class DistanceError extends Error {
  constructor(
    readonly type: 'illegal_argument_exception' | 'number_format_exception',
    message: string,
  ) {
    super(message);
    this.name = 'DistanceError';
  }
}

/** DistanceUnit.convert(distance, from, to): `distance * from.meters / to.meters`. */
export const toMeters = (distance: number, unit: DistanceUnit): number =>
  unit.meters === 1 ? distance : (distance * unit.meters) / 1;
export const fromMeters = (meters: number, unit: DistanceUnit): number =>
  unit.meters === 1 ? meters : (meters * 1) / unit.meters;

/**
 * DistanceUnit.parse: a number with an optional unit suffix ("12km", "1.5mi", "200"), in meters;
 * a number alone is in `defaultUnit`. A bad number fails as Java's Double.parseDouble does.
 */
export function parseDistanceMeters(value: unknown, defaultUnit: DistanceUnit = METERS): number {
  if (typeof value === 'number') return toMeters(value, defaultUnit);
  const text = String(value);
  for (const unit of UNITS) {
    for (const name of unit.names) {
      if (text.endsWith(name))
        return toMeters(javaDouble(text.slice(0, -name.length)), {
          name: unit.names[0]!,
          meters: unit.meters,
        });
    }
  }
  return toMeters(javaDouble(text), defaultUnit);
}

function javaDouble(text: string): number {
  const t = text.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/.test(t)) return Number(t.replace(/[dDfF]$/, ''));
  if (/^[+-]?(NaN|Infinity)$/.test(t)) return Number(t.replace(/^\+/, ''));
  throw new DistanceError(
    'number_format_exception',
    t === '' ? 'empty String' : `For input string: "${text}"`,
  );
}
