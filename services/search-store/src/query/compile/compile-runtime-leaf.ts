import type { CompileContext } from './compile-context';
import { embedSql } from './embed-sql';
import type { Query } from '../query-ast';
import type { RuntimeRelation } from './runtime-relation';
import type { SearchRuntimeFields } from './search-runtime-fields';
import { parseQueryNumber } from '../parse/parse-query-number';

type RuntimeLeaf = Extract<Query, { kind: 'term' | 'terms' | 'range' | 'exists' | 'match' }>;

/** The leaf queries Elasticsearch runs on runtime fields here, with their field, or undefined. */
export function runtimeLeafField(
  query: Query,
  runtime: SearchRuntimeFields | undefined,
): RuntimeLeaf | undefined {
  if (!runtime) return undefined;
  if (
    query.kind === 'term' ||
    query.kind === 'terms' ||
    query.kind === 'range' ||
    query.kind === 'exists' ||
    query.kind === 'match'
  ) {
    return runtime.types.has(query.field) ? query : undefined;
  }
  return undefined;
}

/**
 * term, terms, range, exists and match on a runtime field (ES "Runtime fields: search a runtime
 * field"): the field's `(doc_key, v)` relation from the runtime-field evaluator, filtered in SQL. Runtime
 * fields have no index statistics, so every match scores the constant boost (ES: 1.0 × boost).
 */
export async function compileRuntimeLeaf(
  ctx: CompileContext,
  runtime: SearchRuntimeFields,
  query: RuntimeLeaf,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const relation = await runtime.relation(ctx.db, ctx.reader, query.field);
  const { params } = ctx;
  const keyword = relation.type === 'keyword';
  // roundUp undefined: an exact value (term, terms), never rounded to a whole number for a long field.
  const value = (
    v: string | number | boolean,
    roundUp?: boolean,
    format?: string,
    timeZone?: string,
  ): string =>
    keyword
      ? `${params.add(String(v))}::text`
      : `${params.add(toNumber(relation, v, ctx.now, roundUp, format, timeZone))}::float8`;
  const conditions: string[] = [];
  switch (query.kind) {
    case 'term':
      conditions.push(
        keyword && query.caseInsensitive
          ? `lower(rt.v) = lower(${value(query.value)})`
          : `rt.v = ${value(query.value)}`,
      );
      break;
    case 'match':
      // A keyword runtime field analyses the query as one token (the keyword analyzer): a term query.
      conditions.push(`rt.v = ${value(query.query)}`);
      break;
    case 'terms':
      conditions.push(
        query.values.length === 0 ? 'false' : `rt.v IN (${query.values.map((v) => value(v)).join(', ')})`,
      );
      break;
    case 'range': {
      const bounds = [
        ['gt', '>', true],
        ['gte', '>=', false],
        ['lt', '<', false],
        ['lte', '<=', true],
      ] as const;
      for (const [key, op, roundUp] of bounds) {
        const v = query[key];
        if (v !== undefined) conditions.push(`rt.v ${op} ${value(v, roundUp, query.format, query.timeZone)}`);
      }
      break;
    }
    case 'exists':
      break;
  }
  const from = embedSql(params, relation.text, relation.values);
  return `SELECT DISTINCT rt.doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s FROM (${from}) rt
    WHERE rt.v IS NOT NULL ${conditions.map((c) => `AND ${c}`).join(' ')}`;
}

function toNumber(
  relation: RuntimeRelation,
  value: string | number | boolean,
  now: number,
  roundUp: boolean | undefined,
  format?: string,
  timeZone?: string,
): number {
  const n = parseQueryNumber(relation.type, value, { now, format, roundUp, timeZone });
  // A fractional bound on a long field moves to the whole numbers it admits (ES rounds range bounds).
  if (relation.type !== 'long' || roundUp === undefined || Number.isInteger(n)) return n;
  return roundUp ? Math.floor(n) : Math.ceil(n);
}
