import { indexedGeoPoints } from '../mapping/check-geo-point';
import { GEOHASH_MAX_PRECISION, geohashOfKey, geoPointKey, type GeoPoint } from '../mapping/geo-point';
import type { FieldMapping } from '../mapping/mapping-types';
import type { IndexedField } from './indexed-fields';

/**
 * A `geo_point` field's doc values in a source: each point's key (mapping/geo-point.ts), repeats kept
 * as Lucene's SortedNumericDocValues keep them, sorted.
 */
export function geoPointKeys(field: IndexedField, source: Record<string, unknown>): string[] | undefined {
  const keys = geoPointsAtPath(field, source).map(geoPointKey);
  return keys.length === 0 ? undefined : keys.sort();
}

/**
 * What a geo_point's multi-field (`location.hash`) indexes: each point's 12-character geohash, as
 * GeoPointFieldMapper hands its sub-fields `geometry.geohash()` whatever form the point came in.
 */
export function geohashesOf(
  sub: IndexedField,
  parent: FieldMapping,
  source: Record<string, unknown>,
): string[] | undefined {
  const hashes = geoPointsAtPath({ ...sub, mapping: parent }, source).map((p) =>
    geohashOfKey(geoPointKey(p), GEOHASH_MAX_PRECISION),
  );
  return hashes.length === 0 ? undefined : hashes;
}

/**
 * The points of a geo_point field in a source as indexed, before quantisation (`fields` shows them).
 * The value at the path is read whole (a point may itself be an array, `[lon, lat]`); arrays above
 * it are walked as everywhere else; an explicit null stands for `null_value`.
 */
export function geoPointsAtPath(field: IndexedField, source: unknown): GeoPoint[] {
  const points: GeoPoint[] = [];
  const visit = (node: unknown, rest: string): void => {
    if (rest === '') {
      if (node !== undefined) points.push(...indexedGeoPoints(field.mapping, node));
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) visit(item, rest);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const parts = rest.split('.');
    for (let i = 1; i <= parts.length; i++) {
      const key = parts.slice(0, i).join('.');
      if (Object.hasOwn(record, key)) visit(record[key], parts.slice(i).join('.'));
    }
  };
  visit(source, field.sourcePath);
  return points;
}
