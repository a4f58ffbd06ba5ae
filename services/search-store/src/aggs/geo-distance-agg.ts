import { distanceMeters, fromMeters } from '../mapping/geo-distance';
import { geoPointFromKey } from '../mapping/geo-point';
import { javaDoubleToString } from '../mapping/raw-number';
import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import { renderBucket, type Bucket } from './render-bucket';
import { GROUP_SEP, type DocSet } from './sql-builder';
import { geoFieldValues, loadGroupPoints } from './geo-values';

type GeoDistanceNode = Extract<AggNode, { type: 'geo_distance' }>;

/**
 * geo_distance aggregation (ES "Geo-distance aggregation", a RangeAggregator over distances): each
 * point's distance from `origin` in `unit` (arc by default: SloppyMath, mapping/geo-distance.ts);
 * a document falls once in every range holding one of its distances (from ≤ d < to). Ranges are
 * listed sorted by (from, to), keyed "from-to" with "*" for an open end, as `range` lists them.
 */
export async function computeGeoDistanceAgg(
  run: AggRun,
  node: GeoDistanceNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const values = geoFieldValues(run, spec.field, 'geo_distance');
  const rows = await loadGroupPoints(run, docs, values);
  const ranges = [...spec.ranges].sort(
    (a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity) || (a.to ?? Infinity) - (b.to ?? Infinity),
  );
  const members = new Map<string, Set<string>>();
  for (const row of rows) {
    const point = geoPointFromKey(row.v);
    const d = fromMeters(
      distanceMeters(spec.distanceType, spec.origin.lat, spec.origin.lon, point.lat, point.lon),
      spec.unit,
    );
    ranges.forEach((r, i) => {
      if ((r.from === undefined || d >= r.from) && (r.to === undefined || d < r.to)) {
        const bg = `${row.g}${GROUP_SEP}${i}`;
        let set = members.get(bg);
        if (!set) members.set(bg, (set = new Set()));
        set.add(row.doc_key);
      }
    });
  }
  const byGroup = new Map<string, Bucket[]>();
  for (const g of groups) {
    byGroup.set(
      g,
      ranges.map((r, i) => {
        const bg = `${g}${GROUP_SEP}${i}`;
        const head: Record<string, unknown> = {
          key:
            r.key ??
            `${r.from === undefined ? '*' : javaDoubleToString(r.from)}-${r.to === undefined ? '*' : javaDoubleToString(r.to)}`,
        };
        if (r.from !== undefined) head.from = r.from;
        if (r.to !== undefined) head.to = r.to;
        return { bg, docCount: members.get(bg)?.size ?? 0, head, subs: {} };
      }),
    );
  }
  const all = [...byGroup.values()].flat();
  run.countBuckets(all.length);
  const memberKeys: string[] = [];
  const memberGroups: string[] = [];
  for (const [bg, set] of members) {
    for (const docKey of set) {
      memberKeys.push(docKey);
      memberGroups.push(bg);
    }
  }
  const membership: DocSet = (b) =>
    `SELECT m.doc_key, m.g FROM unnest(${b.param(memberKeys, 'bigint[]')}, ${b.param(memberGroups, 'text[]')}) AS m(doc_key, g)`;
  await run.attachSubs(node.subs, membership, all);
  return new Map<string, unknown>(
    [...byGroup].map(([g, buckets]): [string, unknown] => {
      if (!spec.keyed) return [g, { buckets: buckets.map(renderBucket) }];
      const keyed = Object.create(null) as Record<string, unknown>;
      for (const bucket of buckets) {
        const { key, ...rest } = renderBucket(bucket);
        keyed[String(key)] = rest;
      }
      return [g, { buckets: keyed }];
    }),
  );
}
