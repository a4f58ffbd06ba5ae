import { geoKeyEncoded, decodeLatitude, decodeLongitude } from '../mapping/geo-point';
import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import { groupValuesSql } from './metric-agg';
import type { DocSet } from './sql-builder';
import { geoFieldValues } from './geo-values';

type GeoBoundsNode = Extract<AggNode, { type: 'geo_bounds' }>;

interface BoundsRow extends Record<string, unknown> {
  g: string;
  top: string | null;
  bottom: string | null;
  pos_left: string | null;
  pos_right: string | null;
  neg_left: string | null;
  neg_right: string | null;
}

/**
 * geo_bounds (ES "Geo-bounds aggregation", GeoBoundsAggregator and InternalGeoBounds): the extreme
 * latitudes, and the extreme longitudes of the points east (≥ 0) and west (< 0) of Greenwich; with
 * `wrap_longitude` (default) the box may cross the dateline when that box is narrower. The extremes
 * are taken over the encoded keys in SQL (their order is the coordinates'), decoded here.
 */
export async function computeGeoBounds(
  run: AggRun,
  node: GeoBoundsNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const values = geoFieldValues(run, node.spec.field, 'geo_bounds');
  const rows = await run.query<BoundsRow>((b) => {
    const east = b.param('80000000');
    return `SELECT x.g, max(substr(x.v, 1, 8)) AS top, min(substr(x.v, 1, 8)) AS bottom,
              min(substr(x.v, 9)) FILTER (WHERE substr(x.v, 9) >= ${east}) AS pos_left,
              max(substr(x.v, 9)) FILTER (WHERE substr(x.v, 9) >= ${east}) AS pos_right,
              min(substr(x.v, 9)) FILTER (WHERE substr(x.v, 9) < ${east}) AS neg_left,
              max(substr(x.v, 9)) FILTER (WHERE substr(x.v, 9) < ${east}) AS neg_right
            FROM (${groupValuesSql(b, docs, values, undefined)}) x GROUP BY x.g`;
  });
  const byGroup = new Map(rows.map((r) => [r.g, r]));
  return new Map(groups.map((g) => [g, renderBounds(byGroup.get(g), node.spec.wrapLongitude)]));
}

const lat = (hex: string): number => decodeLatitude(geoKeyEncoded(`${hex}80000000`).lat);
const lon = (hex: string | null): number =>
  hex === null ? Infinity : decodeLongitude(geoKeyEncoded(`80000000${hex}`).lon);

function renderBounds(row: BoundsRow | undefined, wrap: boolean): Record<string, unknown> {
  if (!row || row.top === null || row.bottom === null) return {};
  const top = lat(row.top);
  const bottom = lat(row.bottom);
  const posLeft = lon(row.pos_left);
  const posRight = row.pos_right === null ? -Infinity : lon(row.pos_right);
  const negLeft = lon(row.neg_left);
  const negRight = row.neg_right === null ? -Infinity : lon(row.neg_right);
  let left: number;
  let right: number;
  if (!Number.isFinite(posLeft)) [left, right] = [negLeft, negRight];
  else if (!Number.isFinite(negLeft)) [left, right] = [posLeft, posRight];
  else if (wrap) {
    const unwrapped = posRight - negLeft;
    const wrapped = 180 - posLeft - (-180 - negRight);
    [left, right] = unwrapped <= wrapped ? [negLeft, posRight] : [posLeft, negRight];
  } else [left, right] = [negLeft, posRight];
  return { bounds: { top_left: { lat: top, lon: left }, bottom_right: { lat: bottom, lon: right } } };
}
