import { EsError } from '@acme/common';
import {
  DistanceError,
  METERS,
  parseDistanceMeters,
  parseDistanceUnit,
  type DistanceType,
  type DistanceUnit,
} from '../mapping/geo-distance';
import { GeoPointError, parseGeoPoint, type GeoPoint } from '../mapping/geo-point';

/** The geo aggregations' specs (ES geo_bounds, geo_centroid, geohash_grid, geo_distance). */
export const GEO_AGG_TYPES = ['geo_bounds', 'geo_centroid', 'geohash_grid', 'geo_distance'] as const;
export type GeoAggType = (typeof GEO_AGG_TYPES)[number];

export interface GeoBox {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export interface GeoBoundsSpec {
  field: string;
  /** Not accepted (the geo aggregations take no `missing` here); kept for the shared field checks. */
  missing?: undefined;
  wrapLongitude: boolean;
}
export interface GeoCentroidSpec {
  field: string;
  /** Not accepted (the geo aggregations take no `missing` here); kept for the shared field checks. */
  missing?: undefined;
}
export interface GeohashGridSpec {
  field: string;
  /** Not accepted (the geo aggregations take no `missing` here); kept for the shared field checks. */
  missing?: undefined;
  precision: number;
  size: number;
  bounds?: GeoBox;
}
export interface GeoDistanceAggSpec {
  field: string;
  /** Not accepted (the geo aggregations take no `missing` here); kept for the shared field checks. */
  missing?: undefined;
  origin: GeoPoint;
  unit: DistanceUnit;
  distanceType: DistanceType;
  ranges: { key?: string; from?: number; to?: number }[];
  keyed: boolean;
}

export type GeoAggSpec =
  | { type: 'geo_bounds'; spec: GeoBoundsSpec }
  | { type: 'geo_centroid'; spec: GeoCentroidSpec }
  | { type: 'geohash_grid'; spec: GeohashGridSpec }
  | { type: 'geo_distance'; spec: GeoDistanceAggSpec };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const illegal = (reason: string): EsError => new EsError('illegal_argument_exception', reason);

function fieldOf(type: string, spec: Json): string {
  if (typeof spec.field !== 'string')
    throw illegal('Required one of fields [field, script], but none were specified.');
  void type;
  return spec.field;
}

function point(value: unknown): GeoPoint {
  try {
    return parseGeoPoint(value, { ignoreZValue: true });
  } catch (error) {
    if (error instanceof GeoPointError) throw new EsError(error.type, error.message);
    throw error;
  }
}

function distance<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof DistanceError) throw new EsError(error.type, error.message);
    throw error;
  }
}

/** One geo aggregation's spec, with ES's errors. */
export function parseGeoAgg(type: GeoAggType, name: string, spec: Json): GeoAggSpec {
  switch (type) {
    case 'geo_bounds':
      return {
        type,
        spec: {
          field: fieldOf(type, spec),
          wrapLongitude: spec.wrap_longitude !== false && spec.wrap_longitude !== 'false',
        },
      };
    case 'geo_centroid':
      return { type, spec: { field: fieldOf(type, spec) } };
    case 'geohash_grid':
      return { type, spec: parseGeohashGrid(name, spec) };
    case 'geo_distance':
      return { type, spec: parseGeoDistanceAgg(name, spec) };
  }
}

function sizeOf(value: unknown, what: string, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw new EsError('x_content_parse_exception', `[${what}] failed to parse field [${what}]`);
  if (n <= 0) throw illegal(`[${what}] must be greater than 0. Found [${n}] in [${name}]`);
  return n;
}

/** GeoUtils.parsePrecision: a level 1–12, a numeric string, or a cell size ("1km"). */
function precisionOf(value: unknown): number {
  if (value === undefined) return 5;
  let level: number;
  if (typeof value === 'number') level = Math.trunc(value);
  else if (typeof value === 'string' && /^[+-]?\d+$/.test(value.trim())) level = Number(value);
  else {
    const meters = distance(() => parseDistanceMeters(String(value)));
    level = geohashLevelsForPrecision(meters);
    if (level < 1 || level > 12) throw illegal(`precision too high [${String(value)}]`);
    return level;
  }
  if (level < 1 || level > 12)
    throw illegal(`Invalid geohash aggregation precision of ${level}. Must be between 1 and 12.`);
  return level;
}

/** GeoUtils.geoHashLevelsForPrecision: the first level whose cells are no larger than `meters`. */
export function geohashLevelsForPrecision(meters: number): number {
  if (meters === 0) return 24;
  const equator = 2 * Math.PI * 6378137.0;
  const polar = Math.PI * 6356752.314245;
  const ratio = 1 + polar / equator;
  const width = Math.sqrt((meters * meters) / (ratio * ratio));
  const part = Math.ceil(equator / width);
  if (part === 1) return 1;
  const bits = Math.round(Math.ceil(Math.log(part) / Math.log(2)));
  const full = Math.trunc(bits / 5);
  const left = bits - full * 5;
  return full + (left > 0 ? 1 : 0) + full + (left > 3 ? 1 : 0);
}

function parseGeohashGrid(name: string, spec: Json): GeohashGridSpec {
  const size = sizeOf(spec.size, 'size', name, 10_000);
  sizeOf(spec.shard_size, 'shard_size', name, size);
  const out: GeohashGridSpec = {
    field: fieldOf('geohash_grid', spec),
    precision: precisionOf(spec.precision),
    size,
  };
  if (spec.bounds !== undefined) out.bounds = parseBounds(spec.bounds);
  return out;
}

/** `bounds`: top_left/bottom_right (or top_right/bottom_left) points, or top/left/bottom/right. */
function parseBounds(value: unknown): GeoBox {
  if (!isObject(value))
    throw new EsError('parse_exception', 'failed to parse bounding box. Missing corner definitions.');
  const box: Partial<GeoBox> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'top' || key === 'left' || key === 'bottom' || key === 'right') box[key] = Number(v);
    else if (key === 'top_left' || key === 'bottom_right' || key === 'top_right' || key === 'bottom_left') {
      const p = point(v);
      if (key.startsWith('top')) box.top = p.lat;
      else box.bottom = p.lat;
      if (key.endsWith('left')) box.left = p.lon;
      else box.right = p.lon;
    } else throw new EsError('parse_exception', `failed to parse bounding box. unexpected field [${key}]`);
  }
  const { top, left, bottom, right } = box;
  if (
    top === undefined ||
    left === undefined ||
    bottom === undefined ||
    right === undefined ||
    [top, left, bottom, right].some(Number.isNaN)
  )
    throw new EsError('parse_exception', 'failed to parse bounding box. Missing corner definitions.');
  return { top, left, bottom, right };
}

function parseGeoDistanceAgg(name: string, spec: Json): GeoDistanceAggSpec {
  const field = fieldOf('geo_distance', spec);
  if (spec.origin === undefined || spec.origin === null)
    throw illegal(`Missing [origin] in geo_distance aggregator [${name}]`);
  const origin = point(spec.origin);
  const unit = spec.unit === undefined ? METERS : distance(() => parseDistanceUnit(String(spec.unit)));
  const distanceType = spec.distance_type === undefined ? 'arc' : String(spec.distance_type);
  if (distanceType !== 'arc' && distanceType !== 'plane')
    throw illegal(`No geo distance for [${distanceType}]`);
  if (!Array.isArray(spec.ranges) || spec.ranges.length === 0)
    throw illegal(`No [ranges] specified for the [${name}] aggregation`);
  const ranges = spec.ranges.map((r) => {
    if (!isObject(r)) throw new EsError('parsing_exception', 'Expected [START_OBJECT] under [ranges]');
    const out: { key?: string; from?: number; to?: number } = {};
    if (typeof r.key === 'string') out.key = r.key;
    for (const side of ['from', 'to'] as const) {
      const v = r[side];
      if (v === undefined || v === null) continue;
      const n = typeof v === 'string' ? Number(v) : v;
      if (typeof n !== 'number' || Number.isNaN(n))
        throw new EsError('parsing_exception', `[${side}] must be a number`);
      out[side] = n;
    }
    return out;
  });
  return { field, origin, unit, distanceType, ranges, keyed: spec.keyed === true };
}
