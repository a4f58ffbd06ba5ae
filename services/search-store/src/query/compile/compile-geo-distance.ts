import { docValuesOf } from '../../index/doc-values-reader';
import { distanceQuerySortKey, haversinSortKey } from '../../mapping/geo-distance';
import {
  encodeLatitude,
  encodedKey,
  geoPointFromKey,
  isValidLatitude,
  isValidLongitude,
  normalizePoint,
} from '../../mapping/geo-point';
import { javaDoubleToString } from '../../mapping/raw-number';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import { NOTHING, type CompileContext } from './compile-context';
import { geoQueryField } from './geo-field';

type DistanceQuery = Extract<Query, { kind: 'geo_distance' }>;

const EARTH_MEAN_RADIUS = 6_371_008.7714;

/**
 * geo_distance on a geo_point field (ES GeoDistanceQueryBuilder.doToQuery → Lucene's Circle over
 * LatLonPoint): the center validated (STRICT) or normalised (COERCE); a document matches when one of
 * its points has a haversine sort key (SloppyMath, mapping/geo-distance.ts) at most the radius's
 * (GeoUtils.distanceQuerySortKey), as Lucene decides it. The points of the circle's latitude band are
 * read off the doc-values index in this snapshot, the distances computed here, and the matches handed
 * back as a relation. A filter: constant score.
 */
export async function compileGeoDistance(
  ctx: CompileContext,
  query: DistanceQuery,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const field = geoQueryField(ctx, query);
  if (!field) return NOTHING;
  let center = query.center;
  // GeoValidationMethod.isIgnoreMalformed holds for COERCE too: only STRICT refuses.
  if (query.validation === 'STRICT') {
    if (!isValidLatitude(center.lat))
      throw shardError(`illegal latitude value [${javaDoubleToString(center.lat)}] for [geo_distance]`);
    if (!isValidLongitude(center.lon))
      throw shardError(`illegal longitude value [${javaDoubleToString(center.lon)}] for [geo_distance]`);
  }
  if (query.validation === 'COERCE') center = normalizePoint(center);
  const sortKey = distanceQuerySortKey(query.meters);
  // The latitude band the circle can reach, widened past SloppyMath's error (≤ 0.4 m; 1e-5° is 1.1 m):
  // the band only narrows the candidates, the sort key decides.
  const reach = (query.meters / EARTH_MEAN_RADIUS) * (180 / Math.PI) * 1.0001 + 1e-5;
  const low = Math.max(-90, center.lat - reach);
  const high = Math.min(90, center.lat + reach);
  const values: unknown[] = [ctx.reader.indexId, field.fieldId];
  const band =
    low <= -90 && high >= 90
      ? ''
      : (values.push(
          `${encodedKey(encodeLatitude(low))}00000000`,
          `${encodedKey(encodeLatitude(high))}ffffffff`,
        ),
        ' WHERE x.v >= $3 AND x.v <= $4');
  const { rows } = await ctx.db.query<{ doc_key: string; v: string }>(
    `SELECT x.doc_key, x.v FROM (${docValuesOf('kw', [{ indexId: '$1::bigint', fieldId: '$2::int' }])}) x${band}`,
    values,
  );
  const matched = new Set<string>();
  for (const row of rows) {
    if (matched.has(row.doc_key)) continue;
    const point = geoPointFromKey(row.v);
    if (haversinSortKey(center.lat, center.lon, point.lat, point.lon) <= sortKey) matched.add(row.doc_key);
  }
  if (matched.size === 0) return NOTHING;
  const { params } = ctx;
  return `SELECT unnest(${params.add([...matched])}::bigint[]) AS doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s`;
}

function shardError(reason: string): ShardQueryError {
  return new ShardQueryError({ type: 'query_shard_exception', reason });
}
