import { EsError } from '@acme/common';
import { docValuesOf } from '../index/doc-values-reader';
import type { AggRun } from './agg-run';
import type { FieldValues } from './field-values';
import { groupValuesSql } from './metric-agg';
import type { DocSet } from './sql-builder';

/**
 * A geo_point field's doc values for the geo aggregations: the keys of mapping/geo-point.ts in `kw`.
 * A field of another type is refused as ES refuses it (ValuesSourceConfig: "Field [x] of type [y] is
 * not supported for aggregation [z]"); an unmapped field has no values.
 */
export function geoFieldValues(run: AggRun, path: string, aggType: string): FieldValues {
  const fields = run.ctx.fieldsByPath(path);
  const first = fields[0];
  if (first && first.type !== 'geo_point') {
    throw new EsError(
      'illegal_argument_exception',
      `Field [${path}] of type [${first.type}] is not supported for aggregation [${aggType}]`,
    );
  }
  const same = fields.filter((f) => f.type === 'geo_point');
  return {
    path,
    type: first ? 'geo_point' : null,
    column: 'kw',
    unique: false,
    sql: (b) =>
      same.length === 0
        ? 'SELECT NULL::bigint AS doc_key, NULL::text AS v WHERE false'
        : docValuesOf(
            'kw',
            same.map((f) => ({ indexId: b.param(f.indexId, 'bigint'), fieldId: b.param(f.fieldId, 'int') })),
          ),
  };
}

export interface GeoRow extends Record<string, unknown> {
  g: string;
  doc_key: string;
  v: string;
}

/**
 * Every point of the documents of every group, in Lucene's collection order: documents in order, a
 * document's points as LatLonDocValuesField sorts them (the long lat << 32 | lon: latitude signed,
 * then the longitude's bits unsigned, so east of Greenwich before west).
 */
export function loadGroupPoints(run: AggRun, docs: DocSet, values: FieldValues): Promise<GeoRow[]> {
  return run.query<GeoRow>((b) => {
    const east = b.param('80000000');
    return `SELECT x.g, x.doc_key::text AS doc_key, x.v FROM (${groupValuesSql(b, docs, values, undefined)}) x
        ORDER BY x.g, x.doc_key, substr(x.v, 1, 8), substr(x.v, 9) >= ${east} DESC, substr(x.v, 9)`;
  });
}
