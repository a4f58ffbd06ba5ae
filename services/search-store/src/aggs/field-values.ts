import { EsError } from '@acme/common';
import { docValuesOf } from '../index/doc-values-reader';
import { flattenedPrefix } from '../mapping/flattened-value';
import type { AggContext, MatchedSet, Queryable } from './agg-context';
import { docValueType } from './doc-value-type';
import { DEFAULT_MAX_RUNTIME_DOCS, forEachDocumentChunk } from './load-document-values';
import type { SqlBuilder } from './sql-builder';

/** How a field's values are stored: `num` (numbers, dates, booleans) or `kw` (keyword strings). */
export type ValueColumn = 'num' | 'kw';

/** The doc-value column of a mapped type: keywords and ip keys (mapping/ip-value.ts) in `kw`. */
function valueColumn(type: string): ValueColumn {
  return type === 'keyword' || type === 'ip' || type === 'unsigned_long' ? 'kw' : 'num';
}

/**
 * date_nanos in aggregations: its nanoseconds truncated to milliseconds, a `date` from there on
 * (ES buckets date_nanos on millisecond keys: DateUtils.toMilliSeconds).
 */
function dateNanosAsMillis(
  path: string,
  fields: { indexId: string; fieldId: number; type: string }[],
): FieldValues {
  const same = fields.filter((f) => f.type === 'date_nanos');
  return {
    path,
    type: 'date',
    column: 'num',
    unique: false,
    sql: (b) =>
      `SELECT u.doc_key, div(u.v::numeric, 1000000)::float8 AS v FROM (${docValuesOf(
        'kw',
        same.map((f) => ({ indexId: b.param(f.indexId, 'bigint'), fieldId: b.param(f.fieldId, 'int') })),
      )}) u`,
  };
}

/**
 * unsigned_long in numeric aggregations (metrics, histogram, range): its values as doubles, as ES
 * converts them (exact in `terms`, which reads the keys).
 */
function unsignedLongAsDoubles(
  path: string,
  fields: { indexId: string; fieldId: number; type: string }[],
): FieldValues {
  const same = fields.filter((f) => f.type === 'unsigned_long');
  return {
    path,
    type: 'unsigned_long',
    column: 'num',
    unique: false,
    sql: (b) =>
      `SELECT u.doc_key, u.v::float8 AS v FROM (${docValuesOf(
        'kw',
        same.map((f) => ({ indexId: b.param(f.indexId, 'bigint'), fieldId: b.param(f.fieldId, 'int') })),
      )}) u`,
  };
}

/** A field's values as a relation (doc_key, v), ready to join against a doc set. */
export interface FieldValues {
  path: string;
  /** The Elasticsearch field type (long, double, date, boolean, keyword, …); null when unmapped. */
  type: string | null;
  column: ValueColumn;
  /** True when no document repeats a value (keyword doc values are deduplicated at index time). */
  unique: boolean;
  sql(b: SqlBuilder): string;
}

/**
 * Resolves `field` of an aggregation to its values. Runtime fields are evaluated per matched document
 * in Node (bounded by maxRuntimeDocs) and handed back to SQL as an unnest() relation.
 */
export class FieldResolver {
  private readonly runtimeCache = new Map<string, FieldValues>();

  constructor(
    private readonly client: Queryable,
    private readonly ctx: AggContext,
    private readonly matched: MatchedSet,
  ) {}

  async resolve(path: string, aggType: string, allowKeyword: boolean): Promise<FieldValues> {
    const runtime = this.ctx.runtimeFields?.get(path);
    if (runtime) {
      const values = await this.runtimeValues(path);
      this.checkSupported(path, values.type as string, aggType, allowKeyword);
      return values;
    }
    const flattened = this.flattenedValues(path, aggType, allowKeyword);
    if (flattened) return flattened;
    const fields = this.ctx.fieldsByPath(path);
    const first = fields[0];
    if (!first)
      return {
        path,
        type: null,
        column: 'num',
        unique: true,
        sql: () => 'SELECT NULL::bigint AS doc_key, NULL::float8 AS v WHERE false',
      };
    if (first.type === 'text') {
      // Elasticsearch: text fields have fielddata disabled (TextFieldMapper.fielddataBuilder).
      throw new EsError(
        'illegal_argument_exception',
        `Fielddata is disabled on [${path}] in [${first.indexName}]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${path}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
      );
    }
    this.checkSupported(path, first.type, aggType, allowKeyword);
    if (first.type === 'unsigned_long' && !allowKeyword) return unsignedLongAsDoubles(path, fields);
    if (first.type === 'date_nanos') return dateNanosAsMillis(path, fields);
    const column = valueColumn(first.type);
    const same = fields.filter((f) => valueColumn(f.type) === column);
    return {
      path,
      type: first.type,
      column,
      // Keyword and ip doc values are deduplicated at index time; unsigned longs keep repeats.
      unique: column === 'kw' && first.type !== 'unsigned_long',
      // Plain equalities (not a join to unnest) so the planner sees the field's real row count.
      sql: (b) =>
        docValuesOf(
          column,
          same.map((f) => ({ indexId: b.param(f.indexId, 'bigint'), fieldId: b.param(f.fieldId, 'int') })),
        ),
    };
  }

  /**
   * A flattened field (`labels`) or a key in one (`labels.release`): its leaves as keywords, read off
   * the root field's entries under the key (mapping/flattened-value.ts); undefined for other paths.
   */
  private flattenedValues(path: string, aggType: string, allowKeyword: boolean): FieldValues | undefined {
    let fields = this.ctx.fieldsByPath(path);
    let key = '';
    if (fields.length === 0) {
      for (
        let dot = path.lastIndexOf('.');
        dot > 0 && fields.length === 0;
        dot = path.lastIndexOf('.', dot - 1)
      ) {
        fields = this.ctx.fieldsByPath(path.slice(0, dot));
        key = path.slice(dot + 1);
      }
    }
    const same = fields.filter((f) => f.type === 'flattened');
    if (same.length === 0) return undefined;
    if (!allowKeyword) {
      throw new EsError(
        'illegal_argument_exception',
        `Field [${path}] of type [flattened] is not supported for aggregation [${aggType}]`,
      );
    }
    const prefix = flattenedPrefix(key);
    return {
      path,
      type: 'keyword',
      column: 'kw',
      unique: true,
      sql: (b) => {
        const p = b.param(prefix);
        return `SELECT u.doc_key, substr(u.v, ${b.param(prefix.length + 1, 'int')}) AS v FROM (${docValuesOf(
          'kw',
          same.map((f) => ({ indexId: b.param(f.indexId, 'bigint'), fieldId: b.param(f.fieldId, 'int') })),
        )}) u WHERE u.v >= ${p} AND starts_with(u.v, ${p})`;
      },
    };
  }

  private checkSupported(path: string, type: string, aggType: string, allowKeyword: boolean): void {
    // ip doc values are keys in `kw` and aggregate where keywords do (terms, counts), never as numbers.
    const ok =
      type === 'keyword' || type === 'ip'
        ? allowKeyword
        : type === 'unsigned_long' || type === 'date_nanos' || docValueType(type) !== undefined;
    if (!ok) {
      throw new EsError(
        'illegal_argument_exception',
        `Field [${path}] of type [${type}] is not supported for aggregation [${aggType}]`,
      );
    }
  }

  private async runtimeValues(path: string): Promise<FieldValues> {
    const cached = this.runtimeCache.get(path);
    if (cached) return cached;
    const field = this.ctx.runtimeFields?.get(path);
    if (!field) throw new Error(`runtime field ${path} vanished`);
    const deadline = this.ctx.scriptDeadline ?? Date.now() + 5_000;
    const keys: string[] = [];
    const values: Array<number | string> = [];
    // Runtime fields may read each other through doc[…]: _source is loaded when any of them needs it.
    const withSource = [...(this.ctx.runtimeFields?.values() ?? [])].some((f) => f.readsSource);
    await forEachDocumentChunk(
      this.client,
      this.ctx,
      this.matched,
      { limit: this.ctx.maxRuntimeDocs ?? DEFAULT_MAX_RUNTIME_DOCS, withSource },
      (docs) => {
        for (const [docKey, doc] of docs) {
          for (const v of field.evaluate(doc, deadline)) {
            keys.push(docKey);
            values.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
          }
        }
      },
    );
    const column: ValueColumn = field.type === 'keyword' ? 'kw' : 'num';
    const result: FieldValues = {
      path,
      type: field.type,
      column,
      unique: false,
      sql: (b) =>
        `SELECT * FROM unnest(${b.param(keys, 'bigint[]')}, ${b.param(values, column === 'kw' ? 'text[]' : 'float8[]')}) AS rt(doc_key, v)`,
    };
    this.runtimeCache.set(path, result);
    return result;
  }
}
