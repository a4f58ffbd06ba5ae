import { newDictionary } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import { docValuesOf } from '../../index/doc-values-reader';
import { distanceMeters, fromMeters } from '../../mapping/geo-distance';
import { geoPointFromKey } from '../../mapping/geo-point';
import type { IndexReader } from '../index-reader';
import type { SortKey } from '../parse/search-request';
import type { GeoDistanceSortKey } from '../parse/parse-geo-distance-sort';
import { ShardQueryError } from '../shard-query-error';
import type { RuntimeSortKey } from './plan-runtime-sort';
import type { SqlParams } from './sql-params';

/**
 * `_geo_distance` sort keys (ES GeoDistanceSortBuilder): per matched document, the distances from each
 * of its points to each sort point (GeoUtils.distanceValues, in `unit`), reduced by `mode`; a document
 * without a point sorts as +Infinity whatever the order (MultiValueMode.select's missing value). The
 * distances are computed here (SloppyMath, mapping/geo-distance.ts) over the matches' doc values in
 * the search's snapshot and handed to the page query as one jsonb map doc_key → distance.
 */
export async function planGeoSort(
  db: Pool | PoolClient,
  readers: IndexReader[],
  keys: SortKey[],
  params: SqlParams,
  matched: string,
): Promise<Map<number, RuntimeSortKey>> {
  const planned = new Map<number, RuntimeSortKey>();
  for (const [i, key] of keys.entries()) {
    if (key.kind !== 'geo_distance') continue;
    const cases: string[] = [];
    for (const reader of readers) {
      const field = reader.fields.get(key.field);
      if (!field) {
        if (key.ignoreUnmapped) continue;
        throw new ShardQueryError({
          type: 'illegal_argument_exception',
          reason: `failed to find mapper for [${key.field}] for geo distance based sort`,
        });
      }
      if (field.type !== 'geo_point') {
        throw new ShardQueryError({
          type: 'illegal_argument_exception',
          reason: `unable to apply geo distance sort to field [${key.field}] of type [${field.type}]`,
        });
      }
      if (field.fieldId === undefined) continue;
      const values = [...params.values, reader.indexId, field.fieldId];
      const n = values.length;
      const { rows } = await db.query<{ doc_key: string; v: string }>(
        `SELECT x.doc_key, x.v FROM (${docValuesOf('kw', [{ indexId: `$${n - 1}::bigint`, fieldId: `$${n}::int` }])}) x
          WHERE x.doc_key IN (SELECT m.doc_key FROM (${matched}) m WHERE m.index_id = $${n - 1}::bigint)`,
        values,
      );
      const byDoc = new Map<string, number[]>();
      for (const row of rows) {
        const point = geoPointFromKey(row.v);
        let list = byDoc.get(row.doc_key);
        if (!list) byDoc.set(row.doc_key, (list = []));
        for (const from of key.points)
          list.push(
            fromMeters(distanceMeters(key.distanceType, from.lat, from.lon, point.lat, point.lon), key.unit),
          );
      }
      const map = newDictionary<number>();
      for (const [docKey, distances] of byDoc) map[docKey] = select(distances, key.mode);
      cases.push(
        `WHEN ${params.add(reader.indexId)}::bigint THEN (${params.add(JSON.stringify(map))}::jsonb ->> q.doc_key::text)::float8`,
      );
    }
    const lookup = cases.length === 0 ? 'NULL::float8' : `CASE q.index_id ${cases.join(' ')} END`;
    planned.set(i, { expression: `coalesce(${lookup}, 'Infinity'::float8)`, type: 'geo_distance' });
  }
  return planned;
}

/** MultiValueMode over one document's sorted distances. */
function select(values: number[], mode: GeoDistanceSortKey['mode']): number {
  values.sort((a, b) => a - b);
  if (mode === 'min') return values[0]!;
  if (mode === 'max') return values[values.length - 1]!;
  if (mode === 'avg') return values.reduce((s, v) => s + v, 0) / values.length;
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
}
