import { EsError } from '@acme/common';
import type { DocumentValues } from '../script/runtime-fields';
import type { DocValueType } from '../script/script-values';
import type { AggContext, MatchedSet, Queryable } from './agg-context';
import type { SqlBuilder } from './sql-builder';

/** How a field's values are stored: `num` (numbers, dates, booleans) or `kw` (keyword strings). */
export type ValueColumn = 'num' | 'kw';

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

type LoadedDoc = DocumentValues & { raw: Map<string, { type: DocValueType; values: unknown[] }> };

const NUMERIC = new Set([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'unsigned_long',
]);

export function isNumericType(type: string | null): boolean {
  return type !== null && NUMERIC.has(type);
}

export function isIntegralType(type: string | null): boolean {
  return (
    type === 'long' || type === 'integer' || type === 'short' || type === 'byte' || type === 'unsigned_long'
  );
}

export function docValueType(type: string): DocValueType | undefined {
  if (type === 'keyword' || type === 'boolean' || type === 'date') return type;
  if (isIntegralType(type)) return 'long';
  if (NUMERIC.has(type)) return 'double';
  return undefined;
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
    const column: ValueColumn = first.type === 'keyword' ? 'kw' : 'num';
    const same = fields.filter((f) => (f.type === 'keyword' ? 'kw' : 'num') === column);
    return {
      path,
      type: first.type,
      column,
      unique: column === 'kw',
      // Plain equalities (not a join to unnest) so the planner sees the field's real row count.
      sql: (b) =>
        `SELECT dv.doc_key, dv.${column} AS v FROM doc_values dv WHERE (${same
          .map(
            (f) =>
              `(dv.index_id = ${b.param(f.indexId, 'bigint')} AND dv.field_id = ${b.param(f.fieldId, 'int')})`,
          )
          .join(' OR ')}) AND dv.${column} IS NOT NULL`,
    };
  }

  private checkSupported(path: string, type: string, aggType: string, allowKeyword: boolean): void {
    const ok = type === 'keyword' ? allowKeyword : docValueType(type) !== undefined;
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
    const limit = this.ctx.maxRuntimeDocs ?? 100_000;
    const docs = await this.loadDocs(limit);
    const deadline = this.ctx.scriptDeadline ?? Date.now() + 5_000;
    const keys: string[] = [];
    const values: Array<number | string> = [];
    for (const [docKey, doc] of docs) {
      for (const v of field.evaluate(doc, deadline)) {
        keys.push(docKey);
        values.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
      }
    }
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

  /** Loads every matched document's doc values (and _source) once: the one place Node does per-doc work. */
  private async loadDocs(limit: number): Promise<Map<string, LoadedDoc>> {
    const count = await this.client.query<{ n: string }>(
      `SELECT count(*) AS n FROM (${this.matched.sql}) m`,
      this.matched.params,
    );
    const n = Number(count.rows[0]?.n ?? 0);
    if (n > limit) {
      throw new EsError(
        'illegal_argument_exception',
        `Runtime fields in aggregations are evaluated per document; [${n}] matched documents exceed the limit of [${limit}]`,
      );
    }
    const dv = await this.client.query<{
      doc_key: string;
      path: string;
      type: string;
      num: number | null;
      kw: string | null;
    }>(
      `SELECT dv.doc_key, f.path, f.type, dv.num, dv.kw FROM doc_values dv
         JOIN fields f ON f.index_id = dv.index_id AND f.field_id = dv.field_id
        WHERE dv.doc_key IN (SELECT m.doc_key FROM (${this.matched.sql}) m) ORDER BY dv.doc_key, f.path, dv.num, dv.kw`,
      this.matched.params,
    );
    const src = await this.client.query<{ doc_key: string; source: Record<string, unknown> }>(
      `SELECT d.doc_key, d.source FROM documents d WHERE d.doc_key IN (SELECT m.doc_key FROM (${this.matched.sql}) m)`,
      this.matched.params,
    );
    const docs = new Map<string, LoadedDoc>();
    const mappedPaths = new Set<string>();
    const make = (key: string): LoadedDoc => {
      let doc = docs.get(key);
      if (!doc) {
        const raw = new Map<string, { type: DocValueType; values: unknown[] }>();
        doc = {
          raw,
          docValues: (field) =>
            raw.get(field) ??
            (mappedPaths.has(field) || this.ctx.fieldsByPath(field).length > 0
              ? { type: fieldType(this.ctx, field), values: [] }
              : undefined),
        };
        docs.set(key, doc);
      }
      return doc;
    };
    for (const row of src.rows) make(row.doc_key).source = row.source;
    for (const row of dv.rows) {
      const type = docValueType(row.type);
      if (!type) continue;
      mappedPaths.add(row.path);
      const doc = make(row.doc_key);
      let entry = doc.raw.get(row.path);
      if (!entry) doc.raw.set(row.path, (entry = { type, values: [] }));
      entry.values.push(row.kw ?? (type === 'boolean' ? row.num === 1 : row.num));
    }
    return docs;
  }
}

function fieldType(ctx: AggContext, path: string): DocValueType {
  const f = ctx.fieldsByPath(path)[0];
  return (f && docValueType(f.type)) ?? 'keyword';
}
