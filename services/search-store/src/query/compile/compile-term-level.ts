import { keywordNormalizer } from '../../index/analyze-document';
import { docsWithValue } from '../../index/doc-values-reader';
import { docsWithTerms } from '../../index/postings-reader';
import { NOTHING, type CompileContext } from './compile-context';
import { ipRangeCondition, ipTermsCondition } from './compile-ip';
import { compileTermClauses } from './compile-term-clauses';
import { geoPointQueryRefused } from './geo-field';
import { flattenedRangeCondition, flattenedTarget, flattenedTermsCondition } from './compile-flattened';
import { dateNanosRangeCondition, dateNanosTermsCondition } from './compile-date-nanos';
import { DEFAULT_DATE_NANOS_FORMAT } from '../../mapping/date-nanos';
import { unsignedLongRangeCondition, unsignedLongTermsCondition } from './compile-unsigned-long';
import type { ReaderField } from '../index-reader';
import type { Query } from '../query-ast';
import { parseQueryNumber } from '../parse/parse-query-number';
import { ShardQueryError } from '../shard-query-error';

/** term / terms / match on non-text fields: BM25 on keyword and text terms, constant 1 on numbers, dates, booleans. */
/** ES `index.max_terms_count` default. */
const MAX_TERMS_COUNT = 65536;

export async function compileTerms(
  ctx: CompileContext,
  fieldName: string,
  values: (string | number | boolean)[],
  boost: number,
  scoring: boolean,
  caseInsensitive: boolean,
  scored: boolean,
): Promise<string> {
  const { params, reader } = ctx;
  const constant = (sql: string): string =>
    `SELECT doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s FROM (${sql}) c`;
  if (fieldName === '_id') {
    if (values.length === 0) return NOTHING;
    return constant(
      `SELECT doc_key FROM documents WHERE index_id = ${params.add(reader.indexId)}::bigint AND id = ANY(${params.add(values.map(String))}::text[])`,
    );
  }
  if (values.length > MAX_TERMS_COUNT) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `The number of terms [${values.length}] used in the Terms Query request has exceeded the allowed maximum of [${MAX_TERMS_COUNT}]. This maximum can be set by changing the [index.max_terms_count] index level setting.`,
    });
  }
  const flat = flattenedTarget(reader, fieldName);
  if (flat) {
    if (flat.field.fieldId === undefined || values.length === 0) return NOTHING;
    const condition = flattenedTermsCondition(params, flat, values);
    return constant(
      docsWithValue(
        `${params.add(reader.indexId)}::bigint`,
        `${params.add(flat.field.fieldId)}::int`,
        condition,
      ),
    );
  }
  const field = reader.fields.get(fieldName);
  if (!field || field.fieldId === undefined || values.length === 0) return NOTHING;
  const idx = (): string => `${params.add(reader.indexId)}::bigint`;
  const fid = (): string => `${params.add(field.fieldId)}::int`;
  if (field.type === 'text' || field.type === 'keyword') {
    // Keyword queries go through the field's normalizer, as ES's KeywordFieldType does.
    const normalize = field.type === 'keyword' ? keywordNormalizer(field, reader.settings) : (v: string) => v;
    const terms = values.map((v) => normalize(String(v)));
    if (caseInsensitive) {
      return constant(
        docsWithTerms(
          idx(),
          fid(),
          (term) => `lower(${term}) = ANY(${params.add(terms.map((t) => t.toLowerCase()))}::text[])`,
        ),
      );
    }
    if (scored && terms.length === 1) return compileTermClauses(ctx, field, terms, 1, boost, scoring);
    return constant(docsWithTerms(idx(), fid(), (term) => `${term} = ANY(${params.add(terms)}::text[])`));
  }
  if (field.type === 'ip') return constant(docsWithValue(idx(), fid(), ipTermsCondition(params, values)));
  if (field.type === 'geo_point') throw geoPointQueryRefused(fieldName, 'term');
  if (field.type === 'date_nanos') {
    const format = field.mapping.format ?? DEFAULT_DATE_NANOS_FORMAT;
    const condition = dateNanosTermsCondition(params, values, { now: ctx.now, format });
    return condition === undefined ? NOTHING : constant(docsWithValue(idx(), fid(), condition));
  }
  if (field.type === 'unsigned_long') {
    const condition = unsignedLongTermsCondition(params, values);
    return condition === undefined ? NOTHING : constant(docsWithValue(idx(), fid(), condition));
  }
  const numbers = values.map((v) => toQueryNumber(ctx, field, v));
  return constant(docsWithValue(idx(), fid(), `num = ANY(${params.add(numbers)}::float8[])`));
}

function toQueryNumber(
  ctx: CompileContext,
  field: ReaderField,
  value: string | number | boolean,
  roundUp = false,
  format?: string,
  timeZone?: string,
): number {
  // A fraction on an integer field matches nothing: doc values hold integers (ES answers no docs too).
  return parseQueryNumber(field.type, value, {
    now: ctx.now,
    format: format ?? field.mapping.format,
    roundUp,
    timeZone,
  });
}

export async function compileRange(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'range' }>,
  boost: number,
  scoring: boolean,
): Promise<string> {
  const { params, reader } = ctx;
  const flat = flattenedTarget(reader, query.field);
  if (flat) {
    if (flat.field.fieldId === undefined) return NOTHING;
    const condition = flattenedRangeCondition(params, flat, query);
    return `SELECT doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s FROM (${docsWithValue(params.add(reader.indexId), params.add(flat.field.fieldId), condition)}) c`;
  }
  const field = reader.fields.get(query.field);
  if (field?.type === 'geo_point') throw geoPointQueryRefused(query.field, 'range');
  if (!field || field.fieldId === undefined) return NOTHING;
  const conditions: string[] = [];
  const constant = (sql: string): string =>
    `SELECT doc_key, ${params.add(scoring ? boost : 0)}::float4 AS s FROM (${sql}) c`;
  const bounds = [
    ['gt', '>', true],
    ['gte', '>=', false],
    ['lt', '<', false],
    ['lte', '<=', true],
  ] as const;
  if (field.type === 'ip' || field.type === 'unsigned_long' || field.type === 'date_nanos') {
    const format = query.format ?? field.mapping.format ?? DEFAULT_DATE_NANOS_FORMAT;
    const condition =
      field.type === 'ip'
        ? ipRangeCondition(params, query)
        : field.type === 'unsigned_long'
          ? unsignedLongRangeCondition(params, query)
          : dateNanosRangeCondition(params, query, { now: ctx.now, format, timeZone: query.timeZone });
    if (condition === undefined) return NOTHING;
    return constant(docsWithValue(params.add(reader.indexId), params.add(field.fieldId), condition));
  }
  if (field.type === 'keyword' || field.type === 'text') {
    for (const [key, op] of bounds) {
      const v = query[key];
      if (v !== undefined) conditions.push(`kw ${op} ${params.add(String(v))}`);
    }
  } else {
    for (const [key, op, roundUp] of bounds) {
      const v = query[key];
      if (v !== undefined)
        conditions.push(
          `num ${op} ${params.add(toQueryNumber(ctx, field, v, roundUp, query.format, query.timeZone))}`,
        );
    }
  }
  const column = field.type === 'keyword' || field.type === 'text' ? 'kw' : 'num';
  return constant(
    docsWithValue(
      params.add(reader.indexId),
      params.add(field.fieldId),
      `${column} IS NOT NULL ${conditions.map((c) => `AND ${c}`).join(' ')}`,
    ),
  );
}
