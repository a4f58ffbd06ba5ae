import { findDocValues } from '../../index/doc-values-reader';
import { compileScript, type CompiledScript } from '../../script/compile-script';
import { ScriptError } from '../../script/script-error';
import {
  DateValue,
  DocMap,
  DocValues,
  fromJson,
  javaDouble,
  type DocValueType,
  type Value,
} from '../../script/script-values';
import type { ScoreFunction } from '../function-score-ast';
import type { ReaderField } from '../index-reader';
import { resolveDateMath } from '../parse/date-math';
import { javaStringHash } from '../parse/parse-function-score';
import type { FunctionScoreQuery, Query } from '../query-ast';
import {
  applyModifier,
  combineFunctions,
  combineWithQuery,
  decayEvaluate,
  decayScale,
  javaDoubleText,
  javaFloat,
  mix32,
  murmurhash3x86,
  randomFromHash,
  selectMultiValue,
  type FunctionValue,
} from '../score/function-score';
import { ShardQueryError } from '../shard-query-error';
import { NOTHING, type CompileContext } from './compile-context';
import { shardFailure } from './multi-term-rewrite';
import { SqlParams } from './sql-params';

type Compile = (ctx: CompileContext, query: Query, boost: number, scoring: boolean) => Promise<string>;

/** Most documents one function_score scores per index (they are scored in Node, a page at a time). */
export const MAX_FUNCTION_SCORE_DOCS = 1_000_000;
const PAGE = 4096;
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
  'date',
]);
const INTEGRAL = new Set(['long', 'integer', 'short', 'byte', 'unsigned_long', 'date']);
const encoder = new TextEncoder();

/** A document's doc values by field path, sorted ascending (SortedNumeric / SortedSet order). */
type DocFields = Map<string, { type: string; values: (number | string)[] }>;

/** The per-document part of one function, after its parameters were read against the mapping. */
type Prepared = (doc: DocRow, subQueryScore: number) => number;

interface DocRow {
  docKey: number;
  fields: DocFields;
  seqNo?: string;
  id?: string;
}

function elasticsearchException(reason: string): ShardQueryError {
  return new ShardQueryError({ type: 'exception', reason });
}

function illegalArgument(reason: string): ShardQueryError {
  return new ShardQueryError({ type: 'illegal_argument_exception', reason });
}

/** TimeValue.parseTimeValue for decay scales and offsets on dates: a whole number and a unit. */
function timeValueMs(text: unknown, setting: string): number {
  const s = String(text).trim().toLowerCase();
  const units: Record<string, number> = {
    nanos: 1e-6,
    micros: 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
    d: 86_400_000,
  };
  const match = /^(-?\d+)\s*(nanos|micros|ms|s|m|h|d)$/.exec(s);
  if (s === '-1' || s === '0') return Number(s);
  if (!match || !Object.hasOwn(units, match[2]!)) {
    throw shardFailure(
      `failed to parse setting [${setting}] with value [${String(text)}] as a time value: unit is missing or unrecognized`,
      'parse_exception',
    );
  }
  return Number(match[1]) * units[match[2]!]!;
}

function doubleParam(value: unknown, name: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw shardFailure(`[${name}] failed to parse as a number: [${String(value)}]`, 'parse_exception');
  return n;
}

function prepareDecay(ctx: CompileContext, fn: Extract<ScoreFunction, { kind: 'decay' }>): Prepared {
  const field = ctx.reader.fields.get(fn.field);
  if (!field) throw shardFailure(`unknown field [${fn.field}]`, 'parsing_exception');
  // geo_point decay waits for the geo_point type (issue 21's geo work).
  if ((field.type as string) === 'geo_point') {
    throw illegalArgument(
      `[${fn.shape}] decay on geo_point field [${fn.field}] is not supported by search-store`,
    );
  }
  if (!NUMERIC.has(field.type)) {
    throw shardFailure(
      `field [${fn.field}] is of type [${field.type}], but only numeric types are supported.`,
      'parsing_exception',
    );
  }
  const isDate = field.type === 'date';
  let origin: number | undefined;
  let scale: number | undefined;
  let offset = 0;
  let decay = 0.5;
  for (const [key, v] of Object.entries(fn.params)) {
    if (key === 'scale') scale = isDate ? timeValueMs(v, 'DecayFunctionParser.scale') : doubleParam(v, key);
    else if (key === 'offset')
      offset = isDate ? timeValueMs(v, 'DecayFunctionParser.offset') : doubleParam(v, key);
    else if (key === 'decay') decay = doubleParam(v, key);
    else if (key === 'origin') {
      origin = isDate
        ? resolveDateMath(v as string | number, {
            now: ctx.now,
            format: typeof field.mapping.format === 'string' ? field.mapping.format : undefined,
            roundUp: false,
          })
        : doubleParam(v, key);
    } else throw shardFailure(`parameter [${key}] not supported!`, 'parse_exception');
  }
  if (isDate) {
    if (scale === undefined) throw shardFailure('[scale] must be set for date fields.', 'parse_exception');
    origin ??= ctx.now;
  } else if (scale === undefined || origin === undefined) {
    throw shardFailure('both [scale] and [origin] must be set for numeric fields.', 'parse_exception');
  }
  // AbstractDistanceScoreFunction's checks, thrown while the query is built.
  if (scale <= 0) throw illegalArgument('function_score : scale must be > 0.0.');
  if (decay <= 0 || decay >= 1) throw illegalArgument('function_score : decay must be in the range [0..1].');
  if (offset < 0) throw illegalArgument('function_score : offset must be > 0.0');
  const processed = decayScale(fn.shape, scale, decay);
  const from = origin;
  return (doc) => {
    const values = doc.fields.get(fn.field)?.values as number[] | undefined;
    // FieldData.replaceMissing(…, 0): a document without a value is at distance 0.
    if (!values || values.length === 0) return decayEvaluate(fn.shape, 0, processed);
    const distances = values.map((v) => Math.max(0.0, Math.abs(v - from) - offset)).sort((a, b) => a - b);
    return decayEvaluate(fn.shape, selectMultiValue(fn.multiValueMode, distances), processed);
  };
}

function prepareFieldValueFactor(
  ctx: CompileContext,
  fn: Extract<ScoreFunction, { kind: 'field_value_factor' }>,
): Prepared {
  const field = ctx.reader.fields.get(fn.field);
  if (!field && fn.missing === undefined) {
    throw elasticsearchException(
      `Unable to find a field mapper for field [${fn.field}]. No 'missing' value defined.`,
    );
  }
  if (field && !NUMERIC.has(field.type)) {
    throw illegalArgument(
      `field [${fn.field}] of type [${field.type}] is not supported by [field_value_factor]: it needs a numeric or date field`,
    );
  }
  return (doc) => {
    const values = field ? doc.fields.get(fn.field)?.values : undefined;
    let value: number;
    if (values && values.length > 0) value = values[0] as number;
    else if (fn.missing !== undefined) value = fn.missing;
    else throw elasticsearchException(`Missing value for field [${fn.field}]`);
    const result = applyModifier(fn.modifier, value * fn.factor);
    if (result < 0) {
      let message = `field value function must not produce negative scores, but got: [${javaDoubleText(result)}] for field value: [${javaDoubleText(value)}]`;
      if (fn.modifier === 'ln')
        message += '; consider using ln1p or ln2p instead of ln to avoid negative scores';
      else if (fn.modifier === 'log')
        message += '; consider using log1p or log2p instead of log to avoid negative scores';
      throw illegalArgument(message);
    }
    return result;
  };
}

/** How a field's doc value prints as fielddata bytes (Long.toString, Double.toString, the keyword). */
function bytesOf(type: string, value: number | string): Uint8Array {
  if (typeof value === 'string') return encoder.encode(value);
  return encoder.encode(INTEGRAL.has(type) ? String(Math.trunc(value)) : javaDouble(value));
}

function prepareRandom(ctx: CompileContext, fn: Extract<ScoreFunction, { kind: 'random_score' }>): Prepared {
  // RandomScoreFunctionBuilder: salt = (index name hash << 10) | shard id (always 0 here).
  const salt = javaStringHash(ctx.reader.name) << 10;
  if (fn.seed === undefined) {
    // Without a seed ES hashes Lucene's doc id with a seed of the request's time: different per request.
    const salted = mix32(hashLong(ctx.now) ^ salt);
    return (doc) => randomFromHash(mix32(doc.docKey ^ salted));
  }
  const salted = mix32(fn.seed ^ salt);
  const fieldName = fn.field ?? '_id';
  if (fieldName === '_seq_no' || fieldName === '_id') {
    return (doc) => {
      const text = fieldName === '_seq_no' ? doc.seqNo : doc.id;
      return randomFromHash(text === undefined ? salted : murmurhash3x86(encoder.encode(text), salted));
    };
  }
  const field: ReaderField | undefined = ctx.reader.fields.get(fieldName);
  if (!field) {
    throw illegalArgument(
      `Field [${fieldName}] is not mapped on [[${ctx.reader.name}/${ctx.reader.uuid}]] and cannot be used as a source of random numbers.`,
    );
  }
  return (doc) => {
    const entry = doc.fields.get(fieldName);
    const first = entry?.values[0];
    return randomFromHash(first === undefined ? salted : murmurhash3x86(bytesOf(field.type, first), salted));
  };
}

/** Long.hashCode. */
function hashLong(value: number): number {
  const big = BigInt.asUintN(64, BigInt(Math.trunc(value)));
  return Number(BigInt.asIntN(32, big ^ (big >> 32n)));
}

function scriptType(type: string): DocValueType {
  if (type === 'keyword') return 'keyword';
  if (type === 'boolean') return 'boolean';
  if (type === 'date') return 'date';
  return INTEGRAL.has(type) ? 'long' : 'double';
}

function prepareScript(fn: Extract<ScoreFunction, { kind: 'script_score' }>): Prepared {
  let script: CompiledScript;
  try {
    script = compileScript(fn.source);
  } catch (error) {
    if (error instanceof ScriptError) throw new ShardQueryError(error.toEsError(fn.source).toCause());
    throw error;
  }
  const params: Value = fromJson(fn.params, { maxDepth: 64 });
  const deadline = Date.now() + script.limits.timeoutMs;
  return (doc, subQueryScore) => {
    const docMap = new DocMap((name) => {
      const entry = doc.fields.get(name);
      if (!entry) return undefined;
      const type = scriptType(entry.type);
      const values: Value[] = entry.values.map((v) =>
        type === 'long'
          ? BigInt(Math.trunc(Number(v)))
          : type === 'date'
            ? new DateValue(Number(v))
            : type === 'boolean'
              ? v === 1
              : v,
      );
      return new DocValues(name, type, values);
    });
    let value: Value;
    try {
      value = script.run({ params, score: subQueryScore, doc: docMap }, deadline);
    } catch (error) {
      if (error instanceof ScriptError) throw new ShardQueryError(script.toEsError(error).toCause());
      throw error;
    }
    const result = typeof value === 'bigint' ? Number(value) : value;
    if (typeof result !== 'number') {
      throw illegalArgument(`script score function must return a number, but got: [${String(result)}]`);
    }
    if (result < 0) {
      throw illegalArgument(
        `script score function must not produce negative scores, but got: [${javaDoubleText(result)}]`,
      );
    }
    return result;
  };
}

function prepare(ctx: CompileContext, fn: ScoreFunction): Prepared {
  switch (fn.kind) {
    case 'weight':
      return () => 1;
    case 'field_value_factor':
      return prepareFieldValueFactor(ctx, fn);
    case 'random_score':
      return prepareRandom(ctx, fn);
    case 'decay':
      return prepareDecay(ctx, fn);
    case 'script_score':
      return prepareScript(fn);
  }
}

function needsDocValues(fn: ScoreFunction): boolean {
  return (
    fn.kind === 'field_value_factor' ||
    fn.kind === 'decay' ||
    fn.kind === 'script_score' ||
    (fn.kind === 'random_score' &&
      fn.seed !== undefined &&
      fn.field !== undefined &&
      !fn.field.startsWith('_'))
  );
}

/**
 * function_score (ES "Function score query"): the inner query's matches (scored with this query's
 * boost, as FunctionScoreQuery.createWeight passes it to the sub query), each rescored in Node by the
 * functions whose filter it matches, combined by score_mode and boost_mode, capped by max_boost, and
 * dropped below min_score. Unscored and without min_score it is the inner query alone, as in ES.
 */
export async function compileFunctionScore(
  ctx: CompileContext,
  query: FunctionScoreQuery,
  boost: number,
  scoring: boolean,
  compile: Compile,
): Promise<string> {
  if (!scoring && query.minScore === undefined) return compile(ctx, query.query, 1, false);
  const prepared = query.functions.map((entry) => ({
    run: prepare(ctx, entry.fn),
    weight: entry.weight,
  }));
  const own = new SqlParams();
  const inner = await compile({ ...ctx, params: own }, query.query, boost, true);
  const joins: string[] = [];
  const columns: string[] = [];
  for (const [i, entry] of query.functions.entries()) {
    if (!entry.filter) continue;
    const filter = await compile({ ...ctx, params: own }, entry.filter, 1, false);
    joins.push(`LEFT JOIN (SELECT DISTINCT doc_key FROM (${filter}) x) f${i} ON f${i}.doc_key = m.doc_key`);
    columns.push(`f${i}.doc_key IS NOT NULL AS f${i}`);
  }
  const needsDocument = query.functions.some(
    (e) => e.fn.kind === 'random_score' && e.fn.seed !== undefined && (e.fn.field ?? '_id').startsWith('_'),
  );
  if (needsDocument) {
    joins.push(
      `JOIN documents d ON d.index_id = ${own.add(ctx.reader.indexId)}::bigint AND d.doc_key = m.doc_key`,
    );
    columns.push('d.seq_no::text AS seq_no', 'd.id');
  }
  const { rows } = await ctx.db.query<Record<string, unknown> & { doc_key: string; s: number }>(
    `SELECT m.doc_key, m.s${columns.map((c) => `, ${c}`).join('')} FROM (${inner}) m ${joins.join(' ')}
      ORDER BY m.doc_key LIMIT ${MAX_FUNCTION_SCORE_DOCS + 1}`,
    own.values,
  );
  if (rows.length > MAX_FUNCTION_SCORE_DOCS) {
    throw illegalArgument(
      `[function_score] matched more than [${MAX_FUNCTION_SCORE_DOCS}] documents; narrow its query`,
    );
  }
  if (rows.length === 0) return NOTHING;
  const loadValues = query.functions.some((e) => needsDocValues(e.fn));
  const minScore = query.minScore === undefined ? undefined : Math.fround(query.minScore);
  const keys: number[] = [];
  const scores: number[] = [];
  for (let start = 0; start < rows.length; start += PAGE) {
    const page = rows.slice(start, start + PAGE);
    const fieldsByDoc = loadValues
      ? await loadDocFields(
          ctx,
          page.map((r) => r.doc_key),
        )
      : new Map();
    for (const row of page) {
      const doc: DocRow = {
        docKey: Number(row.doc_key),
        fields: fieldsByDoc.get(String(row.doc_key)) ?? new Map(),
        seqNo: row.seq_no as string | undefined,
        id: row.id as string | undefined,
      };
      const subQueryScore = row.s;
      let score = subQueryScore;
      if (prepared.length > 0) {
        const values: FunctionValue[] = [];
        for (const [i, p] of prepared.entries()) {
          if (query.functions[i]!.filter && row[`f${i}`] !== true) continue;
          // WeightFactorFunction: the function's value × its weight; a plain function weighs 1.
          const value = p.run(doc, subQueryScore);
          values.push({
            value: p.weight === undefined ? value : value * p.weight,
            weight: p.weight ?? 1,
          });
          if (query.scoreMode === 'first') break;
        }
        const factor = combineFunctions(query.scoreMode, values);
        score = combineWithQuery(query.boostMode, subQueryScore, factor, query.maxBoost);
        if (score < 0 || Number.isNaN(score)) {
          throw elasticsearchException(
            `function score query returned an invalid score: ${javaFloat(score)} for doc: ${doc.docKey}`,
          );
        }
      }
      if (minScore !== undefined && !(score >= minScore)) continue;
      keys.push(doc.docKey);
      scores.push(scoring ? score : 0);
    }
  }
  if (keys.length === 0) return NOTHING;
  const p = ctx.params;
  return `SELECT * FROM unnest(${p.add(keys)}::bigint[], ${p.add(scores)}::float4[]) AS k(doc_key, s)`;
}

async function loadDocFields(ctx: CompileContext, docKeys: string[]): Promise<Map<string, DocFields>> {
  const rows = await findDocValues(ctx.db, `{${ctx.reader.indexId}}`, `{${docKeys.join(',')}}`);
  const out = new Map<string, DocFields>();
  for (const row of rows) {
    let fields = out.get(String(row.doc_key));
    if (!fields) out.set(String(row.doc_key), (fields = new Map()));
    let entry = fields.get(row.path);
    if (!entry) fields.set(row.path, (entry = { type: row.type, values: [] }));
    if (row.num !== null) entry.values.push(Number(row.num));
    else if (row.kw !== null) entry.values.push(row.kw);
  }
  return out;
}
