import { EsError } from '@acme/common';
import { GeoPointError, parseGeoPoint, type GeoPoint } from '../../mapping/geo-point';
import type { GeoValidationMethod } from '../query-ast';
import { locationOf } from './json-locations';

/** Shared by the geo_distance and geo_bounding_box parsers (ES GeoDistanceQueryBuilder, GeoBoundingBoxQueryBuilder). */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function parsingError(reason: string, parent?: Json, key?: string): EsError {
  const at = parent && key !== undefined ? locationOf(parent, key) : undefined;
  return new EsError('parsing_exception', reason, { metadata: { line: at?.line ?? 1, col: at?.col ?? 1 } });
}

/** A point in any form (mapping/geo-point.ts); its ElasticsearchParseException as `parse_exception`. */
export function queryPoint(value: unknown): GeoPoint {
  try {
    return parseGeoPoint(value, { ignoreZValue: true });
  } catch (error) {
    if (error instanceof GeoPointError) throw new EsError(error.type, error.message);
    throw error;
  }
}

/** GeoValidationMethod.fromString: case-insensitive, else "operation type [x] not supported". */
export function validationMethod(value: unknown): GeoValidationMethod {
  const text = String(value).toUpperCase();
  if (text === 'STRICT' || text === 'COERCE' || text === 'IGNORE_MALFORMED') return text;
  throw new EsError('illegal_argument_exception', `operation type [${String(value)}] not supported`);
}

/** Jackson's booleanValue on a value token: true/false, or their strings. */
export function booleanOf(value: unknown, query: string, key: string, parent: Json): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw parsingError(`[${query}] failed to parse field [${key}]`, parent, key);
}

export function numberOf(value: unknown, query: string, key: string, parent: Json): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw parsingError(`[${query}] failed to parse field [${key}]`, parent, key);
  return n;
}
