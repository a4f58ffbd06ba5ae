import { EsError } from '@acme/common';
import { isIntegerType } from '../mapping/field-types';
import type { AggRun } from './agg-run';
import type { AggNode, FieldSpec } from './agg-types';
import { HyperLogLog, precisionFromThreshold } from './hyper-log-log';
import { groupValuesSql } from './metric-agg';
import { hashKeyword, hashNumber } from './murmur3';
import type { DocSet } from './sql-builder';

type MetricNode = Extract<AggNode, { spec: FieldSpec }>;

/** Distinct values read into Node per request at most (each is hashed there, as by Elasticsearch). */
export const MAX_CARDINALITY_VALUES = 1_000_000;

/**
 * cardinality (ES "Cardinality aggregation"): the distinct values per bucket, each hashed as ES hashes
 * it (murmur3.ts) into HyperLogLog++ with the precision of `precision_threshold` (default 3000): exact
 * up to about the threshold, approximate above, as Elasticsearch's counts.
 */
export async function computeCardinality(
  run: AggRun,
  node: MetricNode,
  docs: DocSet,
  groups: string[],
  precisionThreshold = 3000,
): Promise<Map<string, unknown>> {
  const values = await run.fields.resolve(node.spec.field, node.type, true);
  const rows = await run.query<{ g: string; v: number | string }>(
    (b) =>
      `SELECT x.g, x.v FROM (${groupValuesSql(b, docs, values, node.spec.missing)}) x GROUP BY x.g, x.v
        LIMIT ${b.param(MAX_CARDINALITY_VALUES + 1, 'bigint')}`,
  );
  if (rows.length > MAX_CARDINALITY_VALUES)
    throw new EsError(
      'illegal_argument_exception',
      `[cardinality] aggregation [${node.name}] would hash more than [${MAX_CARDINALITY_VALUES}] distinct values; search-store's limit`,
    );
  const p = precisionFromThreshold(Math.min(Math.max(precisionThreshold, 0), 40_000));
  const integer = isIntegerType(values.type) || values.type === 'date' || values.type === 'boolean';
  const sketches = new Map<string, HyperLogLog>(groups.map((g) => [g, new HyperLogLog(p)]));
  for (const r of rows) {
    const hash = values.column === 'kw' ? hashKeyword(String(r.v)) : hashNumber(Number(r.v), integer);
    sketches.get(r.g)?.add(hash);
  }
  return new Map(groups.map((g) => [g, { value: sketches.get(g)?.cardinality() ?? 0 }]));
}
