import { EsError } from '@acme/common';
import { parseDistanceUnit, type DistanceType, type DistanceUnit, METERS } from '../../mapping/geo-distance';
import {
  geoPointValues,
  isValidLatitude,
  isValidLongitude,
  normalizePoint,
  type GeoPoint,
} from '../../mapping/geo-point';
import { javaDoubleToString } from '../../mapping/raw-number';
import { distanceCall } from './parse-geo-distance';
import { queryPoint, validationMethod } from './parse-geo-common';

/** A `_geo_distance` sort key (ES GeoDistanceSortBuilder). */
export interface GeoDistanceSortKey {
  kind: 'geo_distance';
  field: string;
  order: 'asc' | 'desc';
  points: GeoPoint[];
  unit: DistanceUnit;
  mode: 'min' | 'max' | 'avg' | 'median';
  distanceType: DistanceType;
  ignoreUnmapped: boolean;
}

/**
 * `{"_geo_distance": {"<field>": point | [points], "order", "unit", "mode", "distance_type",
 * "ignore_unmapped", "validation_method"}}` (ES "Geo distance sorting"): any key that is not an option
 * names the field; `[lon, lat]` is one point, an array of other forms is several. Points are
 * validated (STRICT) or normalised (COERCE) here, as GeoDistanceSortBuilder.build does.
 */
export function parseGeoDistanceSort(options: Record<string, unknown>): GeoDistanceSortKey {
  let field: string | undefined;
  let points: GeoPoint[] = [];
  let unit = METERS;
  let mode: GeoDistanceSortKey['mode'] | undefined;
  let distanceType: DistanceType = 'arc';
  let ignoreUnmapped = false;
  let validation: ReturnType<typeof validationMethod> = 'STRICT';
  let order: 'asc' | 'desc' = 'asc';
  for (const [key, v] of Object.entries(options)) {
    switch (key) {
      case 'order': {
        const text = String(v).toLowerCase();
        if (text !== 'asc' && text !== 'desc')
          throw new EsError('illegal_argument_exception', `Unknown SortOrder [${String(v)}]`);
        order = text;
        break;
      }
      case 'unit':
        unit = distanceCall(() => parseDistanceUnit(String(v)));
        break;
      case 'mode': {
        const text = String(v).toLowerCase();
        if (text === 'sum')
          throw new EsError(
            'illegal_argument_exception',
            "sort_mode [sum] isn't supported for sorting by geo distance",
          );
        if (text !== 'min' && text !== 'max' && text !== 'avg' && text !== 'median')
          throw new EsError('illegal_argument_exception', `Unknown MultiValueMode [${String(v)}]`);
        mode = text;
        break;
      }
      case 'distance_type':
        if (v !== 'arc' && v !== 'plane')
          throw new EsError('illegal_argument_exception', `No geo distance for [${String(v)}]`);
        distanceType = v;
        break;
      case 'ignore_unmapped':
        ignoreUnmapped = v === true || v === 'true';
        break;
      case 'validation_method':
        validation = validationMethod(v);
        break;
      case 'nested':
      case 'nested_path':
      case 'nested_filter':
        throw new EsError(
          'parsing_exception',
          `[_geo_distance] nested sorting is not supported by search-store`,
        );
      default:
        if (field !== undefined)
          throw new EsError(
            'parsing_exception',
            `Trying to reset fieldName to [${key}], already set to [${field}].`,
          );
        field = key;
        points = geoPointValues(v).map(queryPoint);
    }
  }
  if (field === undefined || points.length === 0)
    throw new EsError('illegal_argument_exception', 'No geo points provided for _geo_distance sort.');
  if (validation === 'STRICT') {
    for (const p of points) {
      if (!isValidLatitude(p.lat))
        throw new EsError(
          'parse_exception',
          `illegal latitude value [${javaDoubleToString(p.lat)}] for [GeoDistanceSort] for field [${field}].`,
        );
      if (!isValidLongitude(p.lon))
        throw new EsError(
          'parse_exception',
          `illegal longitude value [${javaDoubleToString(p.lon)}] for [GeoDistanceSort] for field [${field}].`,
        );
    }
  }
  if (validation === 'COERCE') points = points.map(normalizePoint);
  return {
    kind: 'geo_distance',
    field,
    order,
    points,
    unit,
    mode: mode ?? (order === 'desc' ? 'max' : 'min'),
    distanceType,
    ignoreUnmapped,
  };
}
