import { docsWithValue } from '../../index/doc-values-reader';
import { encodedKey, isValidLatitude, isValidLongitude, normalizePoint } from '../../mapping/geo-point';
import { javaDoubleToString } from '../../mapping/raw-number';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import { NOTHING, type CompileContext } from './compile-context';
import { geoQueryField } from './geo-field';

type BoxQuery = Extract<Query, { kind: 'geo_bounding_box' }>;

const LAT_DECODE = 1 / (2 ** 32 / 180.0);
const LON_DECODE = 1 / (2 ** 32 / 360.0);
const nextDown = (x: number): number => {
  const bits = new Float64Array([x]);
  const words = new BigInt64Array(bits.buffer);
  words[0] = words[0]! - 1n;
  return bits[0]!;
};
// Lucene GeoEncodingUtils.encodeLatitude / encodeLatitudeCeil (and the longitude pair).
const latFloor = (lat: number): number => Math.floor((lat === 90 ? nextDown(90) : lat) / LAT_DECODE);
const latCeil = (lat: number): number => Math.ceil((lat === 90 ? nextDown(90) : lat) / LAT_DECODE);
const lonFloor = (lon: number): number => Math.floor((lon === 180 ? nextDown(180) : lon) / LON_DECODE);
const lonCeil = (lon: number): number => Math.ceil((lon === 180 ? nextDown(180) : lon) / LON_DECODE);

/**
 * geo_bounding_box on a geo_point field (ES GeoBoundingBoxQueryBuilder.doToQuery → Lucene
 * LatLonPoint.newBoxQuery): corners validated (STRICT) or normalised (COERCE), then compared in
 * Lucene's encoded space, bottom/left rounded up and top/right down, so a point matches exactly when
 * it does in ES. A left beyond the right is two boxes across the dateline. A filter: constant score.
 */
export function compileGeoBoundingBox(
  ctx: CompileContext,
  query: BoxQuery,
  boost: number,
  scoring: boolean,
): string {
  const field = geoQueryField(ctx, query);
  if (!field) return NOTHING;
  let { top, left, bottom, right } = query;
  // GeoValidationMethod.isIgnoreMalformed holds for COERCE too: only STRICT refuses.
  if (query.validation === 'STRICT') {
    const problems: string[] = [];
    if (!isValidLatitude(top)) problems.push(`top latitude is invalid: ${javaDoubleToString(top)}`);
    if (!isValidLongitude(left)) problems.push(`left longitude is invalid: ${javaDoubleToString(left)}`);
    if (!isValidLatitude(bottom)) problems.push(`bottom latitude is invalid: ${javaDoubleToString(bottom)}`);
    if (!isValidLongitude(right)) problems.push(`right longitude is invalid: ${javaDoubleToString(right)}`);
    if (problems.length > 0) {
      throw new ShardQueryError({
        type: 'query_shard_exception',
        reason: "couldn't validate latitude/ longitude values",
        caused_by: {
          type: 'action_request_validation_exception',
          reason: `Validation Failed: ${problems.map((p, i) => `${i + 1}: ${p};`).join('')}`,
        },
      });
    }
  }
  if (query.validation === 'COERCE') {
    // A span of whole turns asks for every longitude (GeoBoundingBoxQueryBuilder.doToQuery).
    const complete = (right - left) % 360 === 0 && right > left;
    const topLeft = normalizePoint({ lat: top, lon: complete ? 0 : left });
    const bottomRight = normalizePoint({ lat: bottom, lon: complete ? 0 : right });
    top = topLeft.lat;
    bottom = bottomRight.lat;
    left = complete ? -180 : topLeft.lon;
    right = complete ? 180 : bottomRight.lon;
  }
  // Out-of-range corners taken as given (IGNORE_MALFORMED) are clamped to what can be encoded.
  top = Math.min(90, Math.max(-90, top));
  bottom = Math.min(90, Math.max(-90, bottom));
  left = Math.min(180, Math.max(-180, left));
  right = Math.min(180, Math.max(-180, right));
  // Lucene LatLonPoint.newBoxQuery's edge cases: 90 and 180 themselves are never indexed.
  if (bottom === 90) return NOTHING;
  if (left === 180) {
    if (right === 180) return NOTHING;
    if (right < left) left = -180;
  }
  const minLat = latCeil(bottom);
  const maxLat = latFloor(top);
  if (minLat > maxLat) return NOTHING;
  const { params } = ctx;
  const lat = `kw >= ${params.add(`${encodedKey(minLat)}00000000`)} AND kw <= ${params.add(`${encodedKey(maxLat)}ffffffff`)}`;
  const lon = (lo: number, hi: number): string =>
    `substr(kw, 9) BETWEEN ${params.add(encodedKey(lo))} AND ${params.add(encodedKey(hi))}`;
  const lonCondition =
    right < left
      ? `(${lon(lonCeil(left), lonFloor(180))} OR ${lon(lonCeil(-180), lonFloor(right))})`
      : lon(lonCeil(left), lonFloor(right));
  const docs = docsWithValue(
    `${params.add(ctx.reader.indexId)}::bigint`,
    `${params.add(field.fieldId)}::int`,
    `kw IS NOT NULL AND ${lat} AND ${lonCondition}`,
  );
  return `SELECT doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s FROM (${docs}) c`;
}
