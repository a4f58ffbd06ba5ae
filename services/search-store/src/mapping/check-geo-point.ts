import type { EsCause } from '@acme/common';
import type { FieldMapping } from './mapping-types';
import {
  GeoPointError,
  geoPointValues,
  geoRangeError,
  normalizePoint,
  parseGeoPoint,
  type GeoPoint,
} from './geo-point';

/**
 * A `geo_point` field's values in a document (ES GeoPointFieldMapper with AbstractPointGeometryFieldMapper's
 * PointParser): one point or an array of points; each parsed, then range-checked unless
 * `ignore_malformed`, which instead normalises a finite point and drops one it cannot parse;
 * `ignore_z_value` (default true) accepts and drops a third coordinate; `null` is `null_value`.
 */
export function geoParseOptions(field: FieldMapping): { ignoreZValue: boolean } {
  return { ignoreZValue: field.ignore_z_value !== false && field.ignore_z_value !== 'false' };
}

const ignoresMalformed = (field: FieldMapping): boolean =>
  field.ignore_malformed === true || field.ignore_malformed === 'true';

/** The cause ES reports under "failed to parse field [...]" for the value, or undefined when it is fine. */
export function geoPointCause(field: FieldMapping, value: unknown, full: string): EsCause | undefined {
  if (ignoresMalformed(field)) return undefined;
  for (const item of geoPointValues(value)) {
    if (item === null) continue;
    try {
      const point = parseGeoPoint(item, geoParseOptions(field));
      const range = geoRangeError(point, full);
      if (range) return { type: 'illegal_argument_exception', reason: range };
    } catch (error) {
      if (error instanceof GeoPointError) return { type: error.type, reason: error.message };
      throw error;
    }
  }
  return undefined;
}

/** The points a value indexes: valid ones as given, malformed ones normalised or dropped (ignore_malformed). */
export function indexedGeoPoints(field: FieldMapping, value: unknown): GeoPoint[] {
  const out: GeoPoint[] = [];
  for (const item of geoPointValues(value)) {
    const point = item === null ? nullValuePoint(field) : tryParse(field, item);
    if (!point) continue;
    if (geoRangeError(point, '') === undefined) out.push(point);
    else if (ignoresMalformed(field) && Number.isFinite(point.lat) && Number.isFinite(point.lon))
      out.push(normalizePoint(point));
  }
  return out;
}

function tryParse(field: FieldMapping, item: unknown): GeoPoint | undefined {
  try {
    return parseGeoPoint(item, geoParseOptions(field));
  } catch (error) {
    if (error instanceof GeoPointError) return undefined;
    throw error;
  }
}

/** `null_value` (checked when the mapping was parsed), standing in for an explicit null. */
export function nullValuePoint(field: FieldMapping): GeoPoint | undefined {
  if (field.null_value === undefined || field.null_value === null) return undefined;
  return tryParse(field, field.null_value);
}

/** A mapping's `null_value`/`ignore_z_value` problem (GeoPointFieldMapper.Builder), as ES words it. */
export function geoPointMappingError(name: string, definition: Record<string, unknown>): string | undefined {
  for (const key of ['ignore_malformed', 'ignore_z_value'] as const) {
    const v = definition[key];
    if (v !== undefined && v !== true && v !== false && v !== 'true' && v !== 'false') {
      return `Failed to parse value [${String(v)}] as only [true] or [false] are allowed.`;
    }
  }
  const nullValue = definition.null_value;
  if (nullValue === undefined || nullValue === null) return undefined;
  const field = definition as FieldMapping;
  try {
    const point = parseGeoPoint(nullValue, geoParseOptions(field));
    if (!ignoresMalformed(field)) {
      if (point.lat > 90 || point.lat < -90 || point.lon > 180 || point.lon < -180) {
        const message = geoRangeError(point, '')!.replace(/ for $/, '');
        return `Error parsing [null_value] on field [${name}]: ${message}`;
      }
    }
  } catch (error) {
    if (error instanceof GeoPointError)
      return `Error parsing [null_value] on field [${name}]: ${error.message}`;
    throw error;
  }
  return undefined;
}
