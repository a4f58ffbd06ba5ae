import { geoPointFromKey } from '../mapping/geo-point';
import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import type { DocSet } from './sql-builder';
import { geoFieldValues, loadGroupPoints } from './geo-values';

type GeoCentroidNode = Extract<AggNode, { type: 'geo_centroid' }>;

/** ES CompensatedSum (Kahan), as GeoCentroidAggregator keeps one per bucket and coordinate. */
class CompensatedSum {
  value = 0;
  private delta = 0;
  add(x: number): void {
    if (!Number.isFinite(x)) {
      this.value += x;
      return;
    }
    const corrected = x + this.delta;
    const updated = this.value + corrected;
    this.delta = corrected - (updated - this.value);
    this.value = updated;
  }
}

/**
 * geo_centroid (ES "Geo-centroid aggregation"): the mean of the points' decoded latitudes and
 * longitudes, summed with Kahan compensation in document order as GeoCentroidAggregator does, then
 * through InternalGeoCentroid's reduce (count × mean ÷ count); `count` is the number of points.
 */
export async function computeGeoCentroid(
  run: AggRun,
  node: GeoCentroidNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const values = geoFieldValues(run, node.spec.field, 'geo_centroid');
  const rows = await loadGroupPoints(run, docs, values);
  const sums = new Map<string, { lat: CompensatedSum; lon: CompensatedSum; count: number }>();
  for (const row of rows) {
    let sum = sums.get(row.g);
    if (!sum) sums.set(row.g, (sum = { lat: new CompensatedSum(), lon: new CompensatedSum(), count: 0 }));
    const point = geoPointFromKey(row.v);
    sum.lat.add(point.lat);
    sum.lon.add(point.lon);
    sum.count += 1;
  }
  return new Map(
    groups.map((g): [string, unknown] => {
      const sum = sums.get(g);
      if (!sum || sum.count === 0) return [g, { count: 0 }];
      const n = sum.count;
      const lat = (n * (sum.lat.value / n)) / n;
      const lon = (n * (sum.lon.value / n)) / n;
      return [g, { location: { lat, lon }, count: n }];
    }),
  );
}
