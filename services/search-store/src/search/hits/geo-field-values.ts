import { EsError } from '@acme/common';
import { geoPointsAtPath } from '../../index/geo-point-keys';
import type { IndexedField } from '../../index/indexed-fields';
import { geoJsonOf, wktOf } from '../../mapping/geo-point';

/**
 * A geo_point field in `fields` (ES GeoPointFieldType.valueFetcher with GeometryFormatterFactory):
 * the points of `_source` as parsed, not quantised, GeoJSON by default or `format: "wkt"`; a
 * malformed point left out by ignore_malformed is not shown, `null_value` stands for a null.
 */
export function geoFieldValues(field: IndexedField, source: unknown, format: string | undefined): unknown[] {
  const points = geoPointsAtPath(field, source);
  if (format === undefined || format === 'geojson') return points.map(geoJsonOf);
  if (format === 'wkt') return points.map(wktOf);
  throw new EsError('illegal_argument_exception', `Unrecognized geometry format [${format}].`);
}
