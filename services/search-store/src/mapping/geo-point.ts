import { javaDoubleToString } from './raw-number';

/**
 * `geo_point` values (ES "Geopoint field type"): every input form Elasticsearch 8 accepts, parsed as
 * `GeoUtils.parseGeoPoint` and `GeoPoint.resetFromString` do, with their ElasticsearchParseException
 * messages (`parse_exception`), and the 32-bit quantisation Lucene's LatLonPoint/LatLonDocValuesField
 * index (`GeoEncodingUtils.encodeLatitude/encodeLongitude`), so decoded values equal ES's.
 *
 * Doc values hold a point as 16 hex digits, the encoded latitude then the encoded longitude, each
 * with its sign bit flipped (as Lucene's Geohash.encodeLatLon): under `COLLATE "C"` their order is the
 * numeric order, so a latitude band is one `kw` range of the doc-values index.
 */
export interface GeoPoint {
  lat: number;
  lon: number;
}

/** An ElasticsearchParseException (`parse_exception`) or IllegalArgumentException raised parsing a point. */
export class GeoPointError extends Error {
  constructor(
    readonly type: 'parse_exception' | 'illegal_argument_exception',
    message: string,
  ) {
    super(message);
    this.name = 'GeoPointError';
  }
}

const parseError = (message: string): GeoPointError => new GeoPointError('parse_exception', message);

// Lucene GeoEncodingUtils: 2^32 steps over 180° of latitude and over 360° of longitude.
const LAT_DECODE = 1 / (2 ** 32 / 180.0);
const LON_DECODE = 1 / (2 ** 32 / 360.0);

/** Java's Math.nextDown for a positive double. */
function nextDown(x: number): number {
  const bits = new Float64Array([x]);
  const words = new BigInt64Array(bits.buffer);
  words[0] = words[0]! - 1n;
  return bits[0]!;
}

export function encodeLatitude(lat: number): number {
  // Lucene: 90 itself encodes as the step below it (Math.nextDown).
  const x = lat === 90 ? nextDown(90) : lat;
  return Math.floor(x / LAT_DECODE) | 0;
}

export function encodeLongitude(lon: number): number {
  const x = lon === 180 ? nextDown(180) : lon;
  return Math.floor(x / LON_DECODE) | 0;
}

export const decodeLatitude = (encoded: number): number => encoded * LAT_DECODE;
export const decodeLongitude = (encoded: number): number => encoded * LON_DECODE;

/** The point as Lucene's doc values give it back: each coordinate quantised to its 32-bit step. */
export function quantize(point: GeoPoint): GeoPoint {
  return {
    lat: decodeLatitude(encodeLatitude(point.lat)),
    lon: decodeLongitude(encodeLongitude(point.lon)),
  };
}

const hex8 = (encoded: number): string => ((encoded ^ 0x80000000) >>> 0).toString(16).padStart(8, '0');
const unhex8 = (text: string): number => (parseInt(text, 16) ^ 0x80000000) | 0;

/** The doc-value key of a valid point (mapping/geo-point.ts header). */
export function geoPointKey(point: GeoPoint): string {
  return `${hex8(encodeLatitude(point.lat))}${hex8(encodeLongitude(point.lon))}`;
}

/** The key of an encoded latitude or longitude alone (range bounds on `kw`). */
export const encodedKey = hex8;

/** A doc-value key back to its encoded ints. */
export function geoKeyEncoded(key: string): { lat: number; lon: number } {
  return { lat: unhex8(key.slice(0, 8)), lon: unhex8(key.slice(8, 16)) };
}

/** A doc-value key back to the point Elasticsearch's doc values hold. */
export function geoPointFromKey(key: string): GeoPoint {
  const encoded = geoKeyEncoded(key);
  return { lat: decodeLatitude(encoded.lat), lon: decodeLongitude(encoded.lon) };
}

const BASE_32 = '0123456789bcdefghjkmnpqrstuvwxyz';
/** Lucene/ES Geohash.PRECISION: 12 characters, 60 bits. */
export const GEOHASH_MAX_PRECISION = 12;

/**
 * The cell of a geohash as the encoded ints of its bottom-left corner and its size in encoded steps
 * (Geohash.mortonEncode: characters past the twelfth are ignored; bad symbols are refused).
 */
export function geohashCell(hash: string): { lat: number; lon: number; latBits: number; lonBits: number } {
  if (hash.length === 0) throw new GeoPointError('illegal_argument_exception', 'empty geohash');
  let lonU = 0n;
  let latU = 0n;
  let lonBits = 0;
  let latBits = 0;
  let bit = 0;
  for (const c of hash.slice(0, GEOHASH_MAX_PRECISION)) {
    const value = BASE_32.indexOf(c);
    if (value < 0)
      throw new GeoPointError('illegal_argument_exception', `unsupported symbol [${c}] in geohash [${hash}]`);
    for (let i = 4; i >= 0; i--, bit++) {
      const b = BigInt((value >> i) & 1);
      // Geohash bits alternate, longitude first.
      if (bit % 2 === 0) {
        lonU = (lonU << 1n) | b;
        lonBits++;
      } else {
        latU = (latU << 1n) | b;
        latBits++;
      }
    }
  }
  const lon = Number(lonU << BigInt(32 - lonBits)) ^ 0x80000000;
  const lat = Number(latU << BigInt(32 - latBits)) ^ 0x80000000;
  return { lat: lat | 0, lon: lon | 0, latBits, lonBits };
}

/** The bottom-left corner of a geohash cell (GeoPoint.resetFromGeoHash). */
export function geohashPoint(hash: string): GeoPoint {
  const cell = geohashCell(hash);
  return { lat: decodeLatitude(cell.lat), lon: decodeLongitude(cell.lon) };
}

/** The geohash of a doc-value key at `precision` characters (Geohash.stringEncode of the decoded point). */
export function geohashOfKey(key: string, precision: number): string {
  const latU = parseInt(key.slice(0, 8), 16);
  const lonU = parseInt(key.slice(8, 16), 16);
  let out = '';
  let bit = 0;
  for (let c = 0; c < precision; c++) {
    let value = 0;
    for (let i = 0; i < 5; i++, bit++) {
      const source = bit % 2 === 0 ? lonU : latU;
      const index = 31 - (bit >> 1);
      value = (value << 1) | ((source >>> index) & 1);
    }
    out += BASE_32[value];
  }
  return out;
}

export interface GeoParseOptions {
  /** `ignore_z_value` (default true): a third coordinate is accepted and dropped. */
  ignoreZValue: boolean;
}

function zValue(options: GeoParseOptions, z: number): void {
  if (!options.ignoreZValue) {
    throw parseError(
      `Exception parsing coordinates: found Z value [${javaDoubleToString(z)}] but [ignore_z_value] parameter is [false]`,
    );
  }
}

/** Jackson's doubleValue(coerce): numbers, and strings Java's Double.parseDouble reads. */
function coordinate(value: unknown, name: 'latitude' | 'longitude'): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const n = javaParseDouble(value);
    if (n === undefined) throw parseError('[lat] and [lon] must be valid double values');
    return n;
  }
  throw parseError(`${name} must be a number`);
}

function javaParseDouble(text: string): number | undefined {
  const t = text.trim();
  if (/^[+-]?(NaN|Infinity)$/.test(t)) return Number(t.replace(/^\+/, ''));
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/.test(t)) return undefined;
  return Number(t.replace(/[dDfF]$/, ''));
}

/**
 * One point in any form ES accepts (GeoUtils.parseGeoPoint): `{lat, lon}` (numbers or numeric strings),
 * `{geohash}`, GeoJSON `{type: "Point", coordinates}`, `[lon, lat(, z)]`, `"lat,lon(,z)"`, WKT
 * `"POINT (lon lat)"`, or a geohash string. Range checks are the caller's (they depend on
 * ignore_malformed and validation_method).
 */
export function parseGeoPoint(value: unknown, options: GeoParseOptions = { ignoreZValue: true }): GeoPoint {
  if (Array.isArray(value)) return parseCoordinates(value, options);
  if (typeof value === 'string') return parseGeoPointString(value, options);
  if (typeof value === 'object' && value !== null) return parseGeoPointObject(value, options);
  throw parseError('geo_point expected');
}

function parseCoordinates(values: unknown[], options: GeoParseOptions): GeoPoint {
  if (values.some((v) => typeof v !== 'number')) throw parseError('numeric value expected');
  const numbers = values as number[];
  if (numbers.length > 3) throw parseError('[geo_point] field type does not accept > 3 dimensions');
  if (numbers.length === 3) zValue(options, numbers[2]!);
  return { lon: numbers[0] ?? NaN, lat: numbers[1] ?? NaN };
}

function parseGeoPointObject(record: object, options: GeoParseOptions): GeoPoint {
  let lat: number | undefined;
  let lon: number | undefined;
  let geohash: string | undefined;
  let type: string | undefined;
  let coordinates: unknown[] | undefined;
  for (const [key, v] of Object.entries(record)) {
    if (key === 'lat') lat = coordinate(v, 'latitude');
    else if (key === 'lon') lon = coordinate(v, 'longitude');
    else if (key === 'z') zValue(options, coordinate(v, 'latitude'));
    else if (key === 'geohash') {
      if (typeof v !== 'string') throw parseError('[geohash] must be a string');
      geohash = v;
    } else if (key === 'type') {
      if (typeof v !== 'string') throw parseError('[type] must be a string');
      type = v;
    } else if (key === 'coordinates') {
      if (!Array.isArray(v)) throw parseError('[coordinates] must be an array');
      coordinates = v;
    } else {
      throw parseError(
        `field [${key}] not supported - must be one of: lon, lat, z, type, coordinates, geohash`,
      );
    }
  }
  if (geohash !== undefined) {
    if (lat !== undefined || lon !== undefined || type !== undefined || coordinates !== undefined)
      throw parseError('field must be either lat/lon, geohash string or type/coordinates');
    return geohashOrError(geohash);
  }
  if (type !== undefined || coordinates !== undefined) {
    if (lat !== undefined || lon !== undefined)
      throw parseError('field must be either lat/lon, geohash string or type/coordinates');
    if (type === undefined) throw parseError('Required [type]');
    if (coordinates === undefined) throw parseError('Required [coordinates]');
    if (type.toLowerCase() !== 'point') throw parseError(`[type] for geo_point can only be 'Point'`);
    if (coordinates.length < 2) throw parseError('[coordinates] must contain at least two values');
    if (coordinates.length > 3) throw parseError('[geo_point] field type does not accept > 3 dimensions');
    return parseCoordinates(coordinates, options);
  }
  if (lat === undefined) throw parseError('Required [lat]');
  if (lon === undefined) throw parseError('Required [lon]');
  return { lat, lon };
}

function geohashOrError(hash: string): GeoPoint {
  try {
    return geohashPoint(hash);
  } catch (error) {
    if (error instanceof GeoPointError) throw parseError(error.message);
    throw error;
  }
}

/** GeoPoint.resetFromString: WKT when it says "point", "lat,lon" with a comma, else a geohash. */
function parseGeoPointString(text: string, options: GeoParseOptions): GeoPoint {
  if (text.toLowerCase().includes('point')) return parseWktPoint(text, options);
  if (text.includes(',')) {
    const parts = text.split(',');
    if (parts.length > 3)
      throw parseError(`failed to parse [${text}], expected 2 or 3 coordinates but found: [${parts.length}]`);
    const lat = javaParseDouble(parts[0]!);
    if (lat === undefined) throw parseError('latitude must be a number');
    const lon = javaParseDouble(parts[1]!);
    if (lon === undefined) throw parseError('longitude must be a number');
    if (parts.length === 3) {
      const z = javaParseDouble(parts[2]!);
      if (z === undefined) throw parseError('[z] must be a number');
      zValue(options, z);
    }
    return { lat, lon };
  }
  return geohashOrError(text);
}

const NUMBER = String.raw`[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?`;
const WKT_POINT = new RegExp(
  String.raw`^\s*point\s*(?:z\s*)?\(\s*(${NUMBER})\s+(${NUMBER})(?:\s+(${NUMBER}))?\s*\)\s*$`,
  'i',
);

function parseWktPoint(text: string, options: GeoParseOptions): GeoPoint {
  // Bounded before matching: a WKT point is short, and the pattern is linear anyway.
  const match = text.length <= 200 ? WKT_POINT.exec(text) : null;
  if (!match) {
    if (/^\s*[a-z]+/i.test(text) && !/^\s*point\b/i.test(text)) {
      const type = /^\s*([a-z]+)/i.exec(text)![1]!.toUpperCase();
      throw parseError(`[geo_point] supports only POINT among WKT primitives, but found ${type}`);
    }
    throw parseError('Invalid WKT format');
  }
  if (match[3] !== undefined) zValue(options, Number(match[3]));
  return { lon: Number(match[1]), lat: Number(match[2]) };
}

export const isValidLatitude = (lat: number): boolean => Number.isFinite(lat) && lat >= -90 && lat <= 90;
export const isValidLongitude = (lon: number): boolean => Number.isFinite(lon) && lon >= -180 && lon <= 180;

/** GeoUtils.centeredModulus. */
function centeredModulus(dividend: number, divisor: number): number {
  let rtn = dividend % divisor;
  if (rtn <= 0) rtn += divisor;
  if (rtn > divisor / 2) rtn -= divisor;
  return rtn;
}

/** GeoUtils.normalizePoint(point, true, true): latitude folded into [-90, 90], longitude into (-180, 180]. */
export function normalizePoint(point: GeoPoint): GeoPoint {
  let { lat, lon } = point;
  const normLat = lat > 90 || lat < -90;
  const normLon = lon > 180 || lon < -180 || normLat;
  if (normLat) {
    lat = centeredModulus(lat, 360);
    let shift = true;
    if (lat < -90) lat = -180 - lat;
    else if (lat > 90) lat = 180 - lat;
    else shift = false;
    if (shift) lon += 180;
  }
  if (normLon) lon = centeredModulus(lon, 360);
  return { lat: lat + 0, lon: lon + 0 };
}

/** The range error of a parsed point (GeoPointFieldMapper.GeoPointParser#validate), or undefined. */
export function geoRangeError(point: GeoPoint, field: string): string | undefined {
  if (point.lat > 90 || point.lat < -90)
    return `illegal latitude value [${javaDoubleToString(point.lat)}] for ${field}`;
  if (point.lon > 180 || point.lon < -180)
    return `illegal longitude value [${javaDoubleToString(point.lon)}] for ${field}`;
  return undefined;
}

/**
 * The points of one field value in a document: a single point, or an array of points. An array
 * whose first element is a number is one `[lon, lat]` point (AbstractPointGeometryFieldMapper).
 */
export function geoPointValues(value: unknown): unknown[] {
  if (Array.isArray(value) && value.length > 0 && typeof value[0] !== 'number') return value;
  if (Array.isArray(value) && value.length === 0) return [];
  return [value];
}

/**
 * GeoJSON, as `fields` prints a point by default (GeometryFormatterFactory.GEOJSON); ES writes the
 * map with `coordinates` before `type` (elastic/elasticsearch#72249 shows its output).
 */
export function geoJsonOf(point: GeoPoint): { coordinates: [number, number]; type: 'Point' } {
  return { coordinates: [point.lon, point.lat], type: 'Point' };
}

/** WKT, as `fields` prints a point with `format: wkt` (WellKnownText.toWKT: Java doubles). */
export function wktOf(point: GeoPoint): string {
  return `POINT (${javaDoubleToString(point.lon)} ${javaDoubleToString(point.lat)})`;
}
