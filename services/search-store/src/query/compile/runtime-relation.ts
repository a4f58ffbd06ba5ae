import type { Pool, PoolClient } from 'pg';
import type { AggContext, DocKeySet } from '../../aggs/agg-context';
import { FieldResolver } from '../../aggs/field-values';
import { SqlBuilder } from '../../aggs/sql-builder';
import { fieldsByPath } from './fields-by-path';
import type { IndexReader } from '../index-reader';
import type { RuntimeFields } from '../../script/runtime-fields';

/** A runtime field's values as SQL yielding `(doc_key, v)`, with its own `$1…$n`. */
export interface RuntimeRelation {
  type: string;
  text: string;
  values: unknown[];
}

/**
 * A runtime field's `(doc_key, v)` over every document of one index (or the `matched` ones), through
 * the aggregations' FieldResolver (the same evaluator and limit aggregations use: documents loaded a
 * chunk at a time, evaluated in Node within the script deadline, handed back as an unnest relation).
 */
export async function loadRuntimeRelation(
  client: Pool | PoolClient,
  reader: IndexReader,
  fields: RuntimeFields,
  name: string,
  limits: { maxRuntimeDocs: number; scriptDeadline: number },
  matched?: DocKeySet,
): Promise<RuntimeRelation> {
  const ctx: AggContext = {
    indexIds: [reader.indexId],
    fieldsByPath: fieldsByPath([reader]),
    translateQuery: () => {
      throw new Error('runtime field relations translate no queries');
    },
    runtimeFields: fields,
    maxRuntimeDocs: limits.maxRuntimeDocs,
    scriptDeadline: limits.scriptDeadline,
  };
  const resolver = new FieldResolver(
    client,
    ctx,
    matched ?? { sql: 'SELECT doc_key FROM documents WHERE index_id = $1::bigint', params: [reader.indexId] },
  );
  const values = await resolver.resolve(name, 'runtime', true);
  const b = new SqlBuilder();
  const text = values.sql(b);
  return { type: values.type ?? 'keyword', text, values: b.params };
}
