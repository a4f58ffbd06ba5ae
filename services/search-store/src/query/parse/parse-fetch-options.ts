import { EsError } from '@acme/common';
import { parseTimeParam } from '../../http/time-param';
import { locationOf } from './json-locations';

type Json = Record<string, unknown>;

/** One `script_fields` entry (ES SearchSourceBuilder.ScriptField): evaluated per hit in the fetch phase. */
export interface ScriptFieldSpec {
  name: string;
  source: string;
  params: Record<string, unknown>;
  /** `ignore_failure`: a hit whose script throws gets no value instead of failing the search. */
  ignoreFailure: boolean;
}

/** `stored_fields`: `none` is `_none_` (no stored fields, no metadata, no `_source`). */
export interface StoredFieldsSpec {
  none: boolean;
  patterns: string[];
}

/** `slice` of a scroll or point in time (ES SliceBuilder): the documents whose hash modulo `max` is `id`. */
export interface SliceSpec {
  id: number;
  max: number;
  field?: string;
}

/** The fetch and execution options of a search request (script_fields, stored_fields, …, slice). */
export interface FetchOptions {
  scriptFields?: ScriptFieldSpec[];
  storedFields?: StoredFieldsSpec;
  docvalueFields?: { field: string; format?: string }[];
  terminateAfter?: number;
  /** `timeout` in ms; -1 (given) is none, and absent takes `search.default_search_timeout`. */
  timeoutMs?: number;
  allowPartialSearchResults: boolean;
  profile: boolean;
  slice?: SliceSpec;
  /** Whether `_source` was asked for explicitly (body or URL): stored_fields then keeps it. */
  sourceRequested: boolean;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function at(body: Json, key: string): { line: number; col: number } {
  const where = locationOf(body, key);
  return { line: where?.line ?? 1, col: where?.col ?? 1 };
}

function parsing(body: Json, key: string, reason: string): EsError {
  return new EsError('parsing_exception', reason, { metadata: at(body, key) });
}

function validation(message: string): EsError {
  return new EsError('action_request_validation_exception', `Validation Failed: 1: ${message};`);
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Script (ES Script.parse): a string is inline Painless; an object has `source` or `id`, `params`,
 * `lang`, `options`. Stored scripts do not exist here, so an `id` is the error ES gives for a missing one.
 */
function parseScript(
  body: Json,
  name: string,
  value: unknown,
): { source: string; params: Record<string, unknown> } {
  if (typeof value === 'string') return { source: value, params: {} };
  if (!isObject(value)) {
    throw parsing(body, 'script_fields', `[script] of script field [${name}] must be a string or an object`);
  }
  for (const key of Object.keys(value)) {
    if (!['source', 'id', 'params', 'lang', 'options', 'inline'].includes(key)) {
      throw parsing(body, 'script_fields', `[script] unknown field [${key}]`);
    }
  }
  const lang = value.lang;
  if (lang !== undefined && lang !== 'painless') {
    throw new EsError('illegal_argument_exception', `script_lang not supported [${String(lang)}]`);
  }
  const params = value.params ?? {};
  if (!isObject(params)) throw parsing(body, 'script_fields', '[script] params must be an object');
  if (value.id !== undefined && value.source === undefined) {
    throw new EsError(
      'resource_not_found_exception',
      `unable to find script [${String(value.id)}] in cluster state`,
    );
  }
  const source = value.source ?? value.inline;
  if (typeof source !== 'string') {
    throw parsing(
      body,
      'script_fields',
      'must specify either [source] for an inline script or [id] for a stored script',
    );
  }
  return { source, params };
}

function parseScriptFields(body: Json): ScriptFieldSpec[] | undefined {
  const spec = body.script_fields;
  if (spec === undefined) return undefined;
  if (!isObject(spec)) throw parsing(body, 'script_fields', 'Expected [START_OBJECT] under [script_fields]');
  const out: ScriptFieldSpec[] = [];
  for (const [name, def] of Object.entries(spec)) {
    if (!isObject(def)) {
      throw parsing(
        body,
        'script_fields',
        `Expected [START_OBJECT] under [${name}], but got a different token`,
      );
    }
    let script: { source: string; params: Record<string, unknown> } | undefined;
    let ignoreFailure = false;
    for (const [key, value] of Object.entries(def)) {
      if (key === 'script') script = parseScript(body, name, value);
      else if (key === 'ignore_failure') {
        if (typeof value !== 'boolean') {
          throw parsing(
            body,
            'script_fields',
            `Unknown key for a ${typeof value === 'string' ? 'VALUE_STRING' : 'VALUE_NUMBER'} in [${key}].`,
          );
        }
        ignoreFailure = value;
      } else
        throw parsing(
          body,
          'script_fields',
          `Unknown key for a ${isObject(value) ? 'START_OBJECT' : 'VALUE_STRING'} in [${key}].`,
        );
    }
    if (!script) throw parsing(body, 'script_fields', `[${name}] must have a [script]`);
    out.push({ name, ...script, ignoreFailure });
  }
  return out;
}

/** ES StoredFieldsContext.fromXContent / fromRestRequest: a string or list; `_none_` alone. */
function parseStoredFields(body: Json, param: string | undefined): StoredFieldsSpec | undefined {
  let names: string[];
  if (param !== undefined) names = commaList(param);
  else if (body.stored_fields === undefined) return undefined;
  else if (typeof body.stored_fields === 'string') names = [body.stored_fields];
  else if (Array.isArray(body.stored_fields) && body.stored_fields.every((v) => typeof v === 'string'))
    names = body.stored_fields as string[];
  else
    throw parsing(
      body,
      'stored_fields',
      'Expected [VALUE_STRING] or [START_ARRAY] in [stored_fields] but found a different token',
    );
  if (names.includes('_none_')) {
    if (names.length > 1) {
      throw new EsError('illegal_argument_exception', `cannot combine _none_ with other fields`);
    }
    return { none: true, patterns: [] };
  }
  return { none: false, patterns: names };
}

function parseDocvalueFields(
  body: Json,
  param: string | undefined,
): { field: string; format?: string }[] | undefined {
  if (param !== undefined) return commaList(param).map((field) => ({ field }));
  const spec = body.docvalue_fields;
  if (spec === undefined) return undefined;
  if (!Array.isArray(spec))
    throw parsing(body, 'docvalue_fields', 'Expected [START_ARRAY] in [docvalue_fields]');
  return spec.map((entry) => {
    if (typeof entry === 'string') return { field: entry };
    if (isObject(entry) && typeof entry.field === 'string') {
      for (const key of Object.keys(entry)) {
        if (key !== 'field' && key !== 'format' && key !== 'include_unmapped') {
          throw parsing(body, 'docvalue_fields', `[field_and_format] unknown field [${key}]`);
        }
      }
      if (entry.format !== undefined && typeof entry.format !== 'string') {
        throw parsing(
          body,
          'docvalue_fields',
          "[field_and_format] format doesn't support values of type: VALUE_NUMBER",
        );
      }
      // ES 8 removed `use_field_mapping` (deprecated in 7): it is an unknown format like any other.
      return { field: entry.field, format: entry.format };
    }
    throw parsing(body, 'docvalue_fields', '[field_and_format] required field [field] missing');
  });
}

function nonNegativeInteger(body: Json, key: string, value: unknown): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    const where = at(body, key);
    throw new EsError(
      'x_content_parse_exception',
      `[${where.line}:${where.col}] [search] failed to parse field [${key}]`,
    );
  }
  return n;
}

function parseSlice(body: Json): SliceSpec | undefined {
  const spec = body.slice;
  if (spec === undefined) return undefined;
  if (!isObject(spec)) throw parsing(body, 'slice', '[slice] expected an object');
  for (const key of Object.keys(spec)) {
    if (key !== 'id' && key !== 'max' && key !== 'field')
      throw parsing(body, 'slice', `[slice] unknown field [${key}]`);
  }
  const id = nonNegativeInteger(body, 'slice', spec.id ?? -1);
  const max = nonNegativeInteger(body, 'slice', spec.max ?? -1);
  // SliceBuilder's checks, in its order.
  if (spec.id === undefined || id < 0)
    throw new EsError('illegal_argument_exception', 'id must be greater than or equal to 0');
  if (spec.max === undefined || max <= 1)
    throw new EsError('illegal_argument_exception', 'max must be greater than 1');
  if (id >= max) throw new EsError('illegal_argument_exception', 'max must be greater than id');
  if (spec.field !== undefined && typeof spec.field !== 'string')
    throw parsing(body, 'slice', '[slice] field must be a string');
  return { id, max, field: spec.field as string | undefined };
}

/**
 * The fetch and execution options (ES SearchSourceBuilder fields and the search API's URL parameters):
 * script_fields, stored_fields, docvalue_fields, terminate_after, timeout, profile, slice. The URL
 * parameter wins over the body, as RestSearchAction.parseSearchRequest applies it after the body.
 */
export function parseFetchOptions(body: Json, params: Record<string, string | undefined>): FetchOptions {
  const terminateRaw = params.terminate_after ?? body.terminate_after;
  const terminateAfter =
    terminateRaw === undefined ? undefined : nonNegativeInteger(body, 'terminate_after', terminateRaw);
  if (terminateAfter !== undefined && terminateAfter < 0) {
    throw new EsError('illegal_argument_exception', 'terminateAfter must be > 0');
  }
  const timeoutRaw = params.timeout ?? body.timeout;
  const timeoutMs = timeoutRaw === undefined ? undefined : parseTimeParam(timeoutRaw, 'timeout', -1);
  const allowPartial = params.allow_partial_search_results;
  const options: FetchOptions = {
    scriptFields: parseScriptFields(body),
    storedFields: parseStoredFields(body, params.stored_fields),
    docvalueFields: parseDocvalueFields(body, params.docvalue_fields),
    terminateAfter: terminateAfter === 0 ? undefined : terminateAfter,
    timeoutMs,
    allowPartialSearchResults: allowPartial === undefined ? true : allowPartial !== 'false',
    profile: body.profile === true,
    slice: parseSlice(body),
    sourceRequested:
      body._source !== undefined ||
      params._source !== undefined ||
      params._source_includes !== undefined ||
      params._source_excludes !== undefined,
  };
  if (body.profile !== undefined && typeof body.profile !== 'boolean') {
    throw parsing(
      body,
      'profile',
      `[search] profile doesn't support values of type: ${typeof body.profile === 'string' ? 'VALUE_STRING' : 'VALUE_NUMBER'}`,
    );
  }
  // SearchRequest.validate.
  if (
    options.storedFields?.none &&
    options.sourceRequested &&
    body._source !== false &&
    params._source !== 'false'
  ) {
    throw validation('[stored_fields] cannot be disabled if [_source] is requested');
  }
  if (options.storedFields?.none && Array.isArray(body.fields)) {
    throw validation('[stored_fields] cannot be disabled when using the [fields] option');
  }
  return options;
}
