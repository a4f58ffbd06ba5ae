import { EsError } from '@acme/common';
import { compileScript, type CompiledScript } from './compile-script';
import { ScriptError } from './script-error';
import type { ScriptLimits } from './script-limits';
import {
  DateValue,
  DocMap,
  DocValues,
  fromJson,
  typeOfValue,
  type DocValueType,
  type Value,
} from './script-values';

export const RUNTIME_FIELD_TYPES = ['long', 'double', 'keyword', 'boolean', 'date'] as const;
export type RuntimeFieldType = (typeof RUNTIME_FIELD_TYPES)[number];

/** The values a runtime-field script sees for one document. */
export interface DocumentValues {
  /** Doc values of a mapped field (numbers, keyword strings, booleans, date epoch millis), or undefined if unmapped. */
  docValues(field: string): { type: DocValueType; values: unknown[] } | undefined;
  /** The document's _source, for `params._source` and runtime fields without a script. */
  source?: Record<string, unknown>;
}

export interface RuntimeField {
  readonly name: string;
  readonly type: RuntimeFieldType;
  /** Whether evaluating needs the document's `_source` (no script, or a script naming `_source`). */
  readonly readsSource: boolean;
  /** Runs the script for one document: its values, coerced to the type and sorted (always an array). */
  evaluate(doc: DocumentValues, deadline: number): Array<number | string | boolean>;
}

export type RuntimeFields = ReadonlyMap<string, RuntimeField>;

/** Elasticsearch's AbstractFieldScript.MAX_VALUES: one document may emit at most 100 values. */
export const MAX_EMITTED_VALUES = 100;

/**
 * Parses and compiles `runtime_mappings` ({f: {type, script: {source, params}}}). Runtime fields may
 * read other runtime fields through `doc[…]`; cycles fail as Elasticsearch's do.
 */
export function compileRuntimeFields(mappings: unknown, limits: Partial<ScriptLimits> = {}): RuntimeFields {
  const fields = new Map<string, RuntimeField>();
  if (mappings === undefined || mappings === null) return fields;
  if (typeof mappings !== 'object' || Array.isArray(mappings)) {
    throw new EsError('parsing_exception', 'Expected map for runtime_mappings', {
      metadata: { line: 1, col: 1 },
    });
  }
  const resolving: string[] = [];
  for (const [name, def] of Object.entries(mappings as Record<string, unknown>)) {
    const { type, script } = parseDefinition(name, def);
    const compiled = script ? compileOrThrow(script.source, limits) : null;
    const params = script ? paramsOf(name, script.params) : null;
    const field: RuntimeField = {
      name,
      type,
      readsSource: !compiled || compiled.source.includes('_source'),
      evaluate(doc, deadline) {
        if (!compiled) return coerceAll(name, type, sourceValues(doc.source, name));
        if (resolving.includes(name)) {
          throw new EsError(
            'illegal_argument_exception',
            `Cyclic dependency detected while resolving runtime fields: ${[...resolving, name].join(' -> ')}`,
          );
        }
        resolving.push(name);
        try {
          return runScript(compiled, name, type, params, doc, fields, deadline);
        } finally {
          resolving.pop();
        }
      },
    };
    fields.set(name, field);
  }
  return fields;
}

function parseDefinition(
  name: string,
  def: unknown,
): { type: RuntimeFieldType; script: { source: string; params?: unknown } | null } {
  if (def === null || typeof def !== 'object' || Array.isArray(def)) {
    throw new EsError(
      'mapper_parsing_exception',
      `Expected map for runtime field [${name}] definition but got a ${typeof def}`,
    );
  }
  const { type, script } = def as { type?: unknown; script?: unknown };
  if (type === undefined)
    throw new EsError('mapper_parsing_exception', `No type specified for field [${name}]`);
  if (typeof type !== 'string' || !(RUNTIME_FIELD_TYPES as readonly string[]).includes(type)) {
    throw new EsError(
      'mapper_parsing_exception',
      `No handler for type [${String(type)}] declared on runtime field [${name}]`,
    );
  }
  if (script === undefined || script === null) return { type: type as RuntimeFieldType, script: null };
  if (typeof script === 'string') return { type: type as RuntimeFieldType, script: { source: script } };
  const { source, params, lang } = script as { source?: unknown; params?: unknown; lang?: unknown };
  if (lang !== undefined && lang !== 'painless') {
    throw new EsError('illegal_argument_exception', `script_lang not supported [${String(lang)}]`);
  }
  if (typeof source !== 'string')
    throw new EsError(
      'mapper_parsing_exception',
      `must specify either [source] for an inline script or [id] for a stored script`,
    );
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    throw new EsError('mapper_parsing_exception', `[params] of runtime field [${name}] must be an object`);
  }
  return { type: type as RuntimeFieldType, script: { source, params } };
}

function paramsOf(name: string, params: unknown): Value {
  try {
    return fromJson(params ?? {}, { maxDepth: 64 });
  } catch (error) {
    if (error instanceof ScriptError) {
      throw new EsError(
        'illegal_argument_exception',
        `[params] of runtime field [${name}] are nested too deeply`,
      );
    }
    throw error;
  }
}

function compileOrThrow(source: string, limits: Partial<ScriptLimits>): CompiledScript {
  try {
    return compileScript(source, limits);
  } catch (error) {
    if (error instanceof ScriptError) throw error.toEsError(source);
    throw error;
  }
}

function runScript(
  script: CompiledScript,
  name: string,
  type: RuntimeFieldType,
  params: Value,
  doc: DocumentValues,
  fields: RuntimeFields,
  deadline: number,
): Array<number | string | boolean> {
  const emitted: Array<number | string | boolean> = [];
  const docMap = new DocMap((field) => docValuesFor(field, doc, fields, deadline));
  let scriptParams = params;
  try {
    if (doc.source && params instanceof Map && script.source.includes('_source')) {
      scriptParams = new Map(params);
      scriptParams.set('_source', fromJson(doc.source, { maxDepth: 64 }));
    }
    script.run(
      {
        params: scriptParams,
        doc: docMap,
        emit: (args, at) => {
          if (args.length !== 1)
            throw new ScriptError(
              'runtime',
              'illegal_argument_exception',
              `Unknown call [emit] with [${args.length}] arguments.`,
              at,
            );
          emitted.push(coerceEmitted(type, args[0] as Value, at));
          if (emitted.length > MAX_EMITTED_VALUES) {
            throw new ScriptError(
              'runtime',
              'illegal_argument_exception',
              `Runtime field [${name}] is emitting [${emitted.length}] values while the maximum number of values allowed is [${MAX_EMITTED_VALUES}]`,
              at,
            );
          }
        },
      },
      deadline,
    );
  } catch (error) {
    if (error instanceof ScriptError) throw script.toEsError(error);
    throw error;
  }
  return sortValues(emitted);
}

function docValuesFor(
  field: string,
  doc: DocumentValues,
  fields: RuntimeFields,
  deadline: number,
): DocValues | undefined {
  const runtime = fields.get(field);
  if (runtime)
    return new DocValues(
      field,
      runtime.type,
      runtime.evaluate(doc, deadline).map((v) => toScriptValue(runtime.type, v)),
    );
  const mapped = doc.docValues(field);
  if (!mapped) return undefined;
  return new DocValues(
    field,
    mapped.type,
    mapped.values.map((v) => toScriptValue(mapped.type, v)),
  );
}

/** Doc values as Painless types: long → long, double → double, date → a ZonedDateTime, keyword → String. */
function toScriptValue(type: DocValueType, v: unknown): Value {
  switch (type) {
    case 'long':
      return typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
    case 'double':
      return Number(v);
    case 'date':
      return new DateValue(Number(v));
    case 'boolean':
      return v === true || v === 1 || v === 'true';
    case 'keyword':
      return String(v);
  }
}

/** emit(...) per type: LongFieldScript.emit(long), DoubleFieldScript.emit(double), … */
function coerceEmitted(type: RuntimeFieldType, v: Value, at: number): number | string | boolean {
  switch (type) {
    case 'long':
    case 'date':
      if (typeof v === 'bigint') return Number(v);
      if (type === 'date' && v instanceof DateValue) return v.millis;
      break;
    case 'double':
      if (typeof v === 'bigint' || typeof v === 'number') return Number(v);
      break;
    case 'keyword':
      if (typeof v === 'string') return v;
      break;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      break;
  }
  const javaType = type === 'keyword' ? 'java.lang.String' : type === 'date' ? 'long' : type;
  throw new ScriptError(
    'runtime',
    'class_cast_exception',
    `Cannot cast from [${typeOfValue(v)}] to [${javaType}].`,
    at,
  );
}

function sourceValues(source: Record<string, unknown> | undefined, path: string): unknown[] {
  if (!source) return [];
  let current: unknown[] = [source];
  for (const part of path.split('.')) {
    const next: unknown[] = [];
    for (const node of current) {
      if (node && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, part)) {
        const v = (node as Record<string, unknown>)[part];
        if (Array.isArray(v)) next.push(...v);
        else next.push(v);
      } else if (Array.isArray(node)) {
        next.push(...node);
      }
    }
    current = next;
  }
  return current.filter((v) => v !== null && v !== undefined);
}

/** A runtime field without a script reads `_source` and coerces like the mapped type would. */
function coerceAll(
  name: string,
  type: RuntimeFieldType,
  values: unknown[],
): Array<number | string | boolean> {
  const out: Array<number | string | boolean> = [];
  for (const v of values) {
    switch (type) {
      case 'long':
      case 'double': {
        const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
        if (Number.isFinite(n)) out.push(type === 'long' ? Math.trunc(n) : n);
        break;
      }
      case 'date': {
        const n = typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
        if (Number.isFinite(n)) out.push(n);
        break;
      }
      case 'keyword':
        if (typeof v !== 'object') out.push(String(v));
        break;
      case 'boolean':
        if (typeof v === 'boolean') out.push(v);
        else if (v === 'true' || v === 'false') out.push(v === 'true');
        break;
    }
  }
  if (out.length > MAX_EMITTED_VALUES) {
    throw new EsError(
      'illegal_argument_exception',
      `Runtime field [${name}] is emitting [${out.length}] values while the maximum number of values allowed is [${MAX_EMITTED_VALUES}]`,
    );
  }
  return sortValues(out);
}

function sortValues(values: Array<number | string | boolean>): Array<number | string | boolean> {
  return values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * A runtime field's values as `hits[].fields.<f>` shows them: dates as strict_date_optional_time
 * strings (UTC), everything else as evaluated (always an array, sorted).
 */
export function formatFieldValues(
  type: RuntimeFieldType,
  values: Array<number | string | boolean>,
): unknown[] {
  if (type !== 'date') return values;
  return values.map((v) => new Date(Number(v)).toISOString());
}
