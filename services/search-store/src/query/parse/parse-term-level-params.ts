import { EsError } from '@acme/common';
import { locationOf } from './json-locations';

/**
 * The small readers the multi-term queries (fuzzy, regexp) share: `{field: value}` or
 * `{field: {param…}}`, each parameter's type checked with Elasticsearch's parsing_exception texts.
 * Kept apart from parse-query.ts so the query parsers it dispatches to do not import it back.
 */
export type Json = Record<string, unknown>;

export function parsingError(reason: string, parent: object | undefined, key: string | undefined): EsError {
  const at = parent && key !== undefined ? locationOf(parent, key) : undefined;
  return new EsError('parsing_exception', reason, { metadata: { line: at?.line ?? 1, col: at?.col ?? 1 } });
}

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `{field: spec}` beside optional `boost`/`_name`; exactly one field. */
export function singleFieldOf(
  value: unknown,
  parent: Json,
  name: string,
): { field: string; spec: unknown; container: Json } {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  const fields = Object.keys(value).filter((k) => k !== 'boost' && k !== '_name');
  if (fields.length === 0) throw parsingError(`[${name}] query doesn't support empty field`, parent, name);
  if (fields.length > 1) {
    throw parsingError(
      `[${name}] query doesn't support multiple fields, found [${fields[0]}] and [${fields[1]}]`,
      value,
      fields[1],
    );
  }
  return { field: fields[0]!, spec: value[fields[0]!], container: value };
}

export function checkParams(spec: Json, allowed: readonly string[], name: string): void {
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) throw parsingError(`[${name}] query does not support [${key}]`, spec, key);
  }
}

/** A scalar as text (ES `parser.text()` on a string, number or boolean token). */
export function textParam(spec: Json, key: string, name: string): string {
  const v = spec[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw parsingError(`[${name}] failed to parse field [${key}]`, spec, key);
}

/** ES `parser.intValue()`: a number or numeric string, truncated to an integer. */
export function intParam(spec: Json, key: string, name: string, fallback: number): number {
  const v = spec[key];
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw parsingError(`[${name}] failed to parse field [${key}]`, spec, key);
  return Math.trunc(n);
}

export function floatParam(spec: Json, key: string, name: string, fallback: number): number {
  const v = spec[key];
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw parsingError(`[${name}] failed to parse field [${key}]`, spec, key);
  return n;
}

/** ES `parser.booleanValue()`: true/false or "true"/"false". */
export function boolParam(spec: Json, key: string, name: string, fallback: boolean): boolean {
  const v = spec[key];
  if (v === undefined) return fallback;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw parsingError(`[${name}] failed to parse field [${key}]`, spec, key);
}
