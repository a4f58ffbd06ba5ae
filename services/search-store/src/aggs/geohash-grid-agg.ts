import { geohashOfKey, geoPointFromKey } from '../mapping/geo-point';
import type { AggRun } from './agg-run';
import type { AggNode } from './agg-types';
import { renderBucket, type Bucket } from './render-bucket';
import { GROUP_SEP, type DocSet } from './sql-builder';
import { geoFieldValues, loadGroupPoints } from './geo-values';

type GeohashGridNode = Extract<AggNode, { type: 'geohash_grid' }>;

/**
 * geohash_grid (ES "Geohash grid aggregation"): each document counts once in every cell its points
 * fall in (GeoGridAggregator collects a document's sorted cells without repeats), the cell being the
 * geohash of the encoded point at `precision`; points outside `bounds` are left out. The `size`
 * buckets with the most documents are kept, ties by geohash ascending (InternalGeoGridBucket order).
 */
export async function computeGeohashGrid(
  run: AggRun,
  node: GeohashGridNode,
  docs: DocSet,
  groups: string[],
): Promise<Map<string, unknown>> {
  const { spec } = node;
  const values = geoFieldValues(run, spec.field, 'geohash_grid');
  const rows = await loadGroupPoints(run, docs, values);
  // group → cell → documents
  const cells = new Map<string, Map<string, Set<string>>>();
  for (const row of rows) {
    if (spec.bounds && !inBounds(geoPointFromKey(row.v), spec.bounds)) continue;
    const cell = geohashOfKey(row.v, spec.precision);
    let byCell = cells.get(row.g);
    if (!byCell) cells.set(row.g, (byCell = new Map()));
    let members = byCell.get(cell);
    if (!members) byCell.set(cell, (members = new Set()));
    members.add(row.doc_key);
  }
  const byGroup = new Map<string, Bucket[]>();
  const memberKeys: string[] = [];
  const memberGroups: string[] = [];
  for (const g of groups) {
    const top = [...(cells.get(g) ?? new Map<string, Set<string>>())]
      .sort(([ka, a], [kb, b]) => b.size - a.size || (ka < kb ? -1 : ka > kb ? 1 : 0))
      .slice(0, spec.size);
    byGroup.set(
      g,
      top.map(([cell, members]) => {
        const bg = `${g}${GROUP_SEP}${cell}`;
        for (const docKey of members) {
          memberKeys.push(docKey);
          memberGroups.push(bg);
        }
        return { bg, docCount: members.size, head: { key: cell }, subs: {} };
      }),
    );
  }
  const all = [...byGroup.values()].flat();
  run.countBuckets(all.length);
  const membership: DocSet = (b) =>
    `SELECT m.doc_key, m.g FROM unnest(${b.param(memberKeys, 'bigint[]')}, ${b.param(memberGroups, 'text[]')}) AS m(doc_key, g)`;
  await run.attachSubs(node.subs, membership, all);
  return new Map([...byGroup].map(([g, buckets]) => [g, { buckets: buckets.map(renderBucket) }]));
}

function inBounds(
  point: { lat: number; lon: number },
  box: { top: number; left: number; bottom: number; right: number },
): boolean {
  if (point.lat > box.top || point.lat < box.bottom) return false;
  return box.left <= box.right
    ? point.lon >= box.left && point.lon <= box.right
    : point.lon >= box.left || point.lon <= box.right;
}
