import { EsError } from '@acme/common';
import { DistanceError, METERS, parseDistanceMeters, parseDistanceUnit } from '../../mapping/geo-distance';
import type { Query } from '../query-ast';
import {
  booleanOf,
  isObject,
  numberOf,
  parsingError,
  queryPoint,
  validationMethod,
  type Json,
} from './parse-geo-common';

/**
 * `geo_distance` (ES "Geo-distance query", GeoDistanceQueryBuilder.fromXContent): the field's center in
 * any point form (or `field.lat`/`field.lon`), `distance` as a number (in `unit`, default meters) or a
 * string with a unit suffix, `distance_type` arc|plane (accepted; ES 8 matches by the arc distance
 * whatever it says), `validation_method`, `ignore_unmapped`, `boost`, `_name`.
 */
export function parseGeoDistance(value: unknown, parent: Json, name: string): Query {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  let field: string | undefined;
  let center: { lat: number; lon: number } = { lat: NaN, lon: NaN };
  let distance: unknown;
  let unit = METERS;
  let boost = 1;
  let validation: ReturnType<typeof validationMethod> = 'STRICT';
  let ignoreUnmapped = false;
  const claim = (key: string): void => {
    if (field !== undefined && field !== key)
      throw parsingError(
        `[geo_distance] query doesn't support multiple fields, found [${field}] and [${key}]`,
        value,
        key,
      );
    field = key;
  };
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v) || isObject(v)) {
      claim(key);
      center = queryPoint(v);
      continue;
    }
    switch (key) {
      case 'distance':
        distance = v;
        break;
      case 'unit':
        unit = distanceCall(() => parseDistanceUnit(String(v)));
        break;
      case 'distance_type':
        if (v !== 'arc' && v !== 'plane')
          throw new EsError('illegal_argument_exception', `No geo distance for [${String(v)}]`);
        break;
      case '_name':
        break;
      case 'boost':
        boost = numberOf(v, name, key, value);
        break;
      case 'ignore_unmapped':
        ignoreUnmapped = booleanOf(v, name, key, value);
        break;
      case 'validation_method':
        validation = validationMethod(v);
        break;
      default:
        if (key.endsWith('.lat') || key.endsWith('.lon')) {
          claim(key.slice(0, -4));
          const n = numberOf(v, name, key, value);
          center = key.endsWith('.lat') ? { ...center, lat: n } : { ...center, lon: n };
        } else if (field === undefined) {
          claim(key);
          center = queryPoint(String(v));
        } else {
          throw parsingError(`failed to parse [geo_distance] query. unexpected field [${key}]`, value, key);
        }
    }
  }
  if (distance === undefined || distance === null)
    throw parsingError(`geo_distance requires 'distance' to be specified`, parent, name);
  if (field === undefined) throw new EsError('illegal_argument_exception', 'fieldName must not be null');
  if (typeof distance === 'string' && distance === '')
    throw new EsError('illegal_argument_exception', 'distance must not be null or empty');
  const meters = distanceCall(() => parseDistanceMeters(distance, unit));
  if (!(meters > 0)) throw new EsError('illegal_argument_exception', 'distance must be greater than zero');
  return { kind: 'geo_distance', field, center, meters, validation, ignoreUnmapped, boost };
}

export function distanceCall<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof DistanceError) throw new EsError(error.type, error.message);
    throw error;
  }
}
