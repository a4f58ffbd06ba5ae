import { EsError } from '@acme/common';
import type { GapPolicy, PipelineSpec, PipelineType } from './pipeline-types';

/** Longest buckets_path and most variables one pipeline may name (Elasticsearch has no such limits). */
export const MAX_PATH_LENGTH = 1_024;
export const MAX_PATH_VARIABLES = 64;
export const MAX_SORT_FIELDS = 16;

const FIELDS = new Map<PipelineType, readonly string[]>([
  ['avg_bucket', ['buckets_path', 'gap_policy', 'format']],
  ['max_bucket', ['buckets_path', 'gap_policy', 'format']],
  ['min_bucket', ['buckets_path', 'gap_policy', 'format']],
  ['sum_bucket', ['buckets_path', 'gap_policy', 'format']],
  ['stats_bucket', ['buckets_path', 'gap_policy', 'format']],
  ['extended_stats_bucket', ['buckets_path', 'gap_policy', 'format', 'sigma']],
  ['cumulative_sum', ['buckets_path', 'format']],
  ['derivative', ['buckets_path', 'gap_policy', 'format', 'unit']],
  ['bucket_script', ['buckets_path', 'gap_policy', 'format', 'script']],
  ['bucket_selector', ['buckets_path', 'gap_policy', 'script']],
  ['bucket_sort', ['sort', 'from', 'size', 'gap_policy']],
]);

const GAP_POLICIES = new Set<string>(['skip', 'insert_zeros', 'keep_values']);
const UNIT_MS = new Map<string, number>([
  ['ms', 1],
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
  ['w', 604_800_000],
]);
const NAMED_UNITS = new Map<string, number>([
  ['second', 1_000],
  ['minute', 60_000],
  ['hour', 3_600_000],
  ['day', 86_400_000],
  ['week', 604_800_000],
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function checkPath(path: unknown, type: string, name: string): string {
  if (typeof path !== 'string' || path.length === 0)
    throw new EsError(
      'parsing_exception',
      `[buckets_path] of ${type} aggregation [${name}] must be a string`,
    );
  if (path.length > MAX_PATH_LENGTH)
    throw new EsError(
      'illegal_argument_exception',
      `[buckets_path] of [${name}] is longer than search-store's limit of [${MAX_PATH_LENGTH}] characters`,
    );
  return path;
}

function parseUnit(unit: unknown, name: string): number {
  const text = String(unit);
  const named = NAMED_UNITS.get(text);
  if (named) return named;
  const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(text);
  if (m && Number(m[1]) > 0) return Number(m[1]) * (UNIT_MS.get(m[2] as string) as number);
  throw new EsError(
    'illegal_argument_exception',
    `failed to parse setting [unit] with value [${text}] of derivative aggregation [${name}]`,
  );
}

/** Parses one pipeline aggregation's body (ES *PipelineAggregationBuilder.PARSER). */
export function parsePipeline(type: PipelineType, name: string, body: Record<string, unknown>): PipelineSpec {
  const allowed = FIELDS.get(type) as readonly string[];
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key))
      throw new EsError('x_content_parse_exception', `[${type}] unknown field [${key}]`);
  }
  const spec: PipelineSpec = { kind: type, paths: new Map(), gapPolicy: 'skip', sigma: 2, sort: [], from: 0 };
  const gap = body.gap_policy;
  if (gap !== undefined) {
    if (typeof gap !== 'string' || !GAP_POLICIES.has(gap))
      throw new EsError(
        'illegal_argument_exception',
        `Invalid gap policy: [${String(gap)}], accepted values: [skip, insert_zeros, keep_values]`,
      );
    spec.gapPolicy = gap as GapPolicy;
  }
  if (body.format !== undefined) {
    if (typeof body.format !== 'string')
      throw new EsError('x_content_parse_exception', `[${type}] failed to parse field [format]`);
    spec.format = body.format;
  }
  if (type === 'bucket_sort') return parseSort(spec, name, body);
  const path = body.buckets_path;
  if (path === undefined)
    throw new EsError(
      'parsing_exception',
      `Missing required field [buckets_path] for ${type} aggregation [${name}]`,
    );
  if (type === 'bucket_script' || type === 'bucket_selector') {
    if (isObject(path)) {
      const entries = Object.entries(path);
      if (entries.length > MAX_PATH_VARIABLES)
        throw new EsError(
          'illegal_argument_exception',
          `[buckets_path] of [${name}] names more than search-store's limit of [${MAX_PATH_VARIABLES}] variables`,
        );
      for (const [variable, p] of entries) spec.paths.set(variable, checkPath(p, type, name));
    } else spec.paths.set('_value', checkPath(path, type, name));
    spec.script = parseScriptField(body.script, type, name);
  } else {
    // Sibling and sequential parents take one path (an array of one is accepted, as by Elasticsearch).
    const one = Array.isArray(path) && path.length === 1 ? path[0] : path;
    spec.paths.set('_value', checkPath(one, type, name));
  }
  if (body.sigma !== undefined) {
    if (typeof body.sigma !== 'number' || !(body.sigma >= 0))
      throw new EsError('illegal_argument_exception', `[sigma] must be a non-negative double`);
    spec.sigma = body.sigma;
  }
  if (body.unit !== undefined) spec.unitMs = parseUnit(body.unit, name);
  return spec;
}

function parseScriptField(script: unknown, type: string, name: string): { source: string; params: unknown } {
  if (typeof script === 'string') return { source: script, params: {} };
  if (isObject(script) && typeof script.source === 'string') {
    if (script.params !== undefined && !isObject(script.params))
      throw new EsError('parsing_exception', `[params] of the script of [${name}] must be an object`);
    return { source: script.source, params: script.params ?? {} };
  }
  if (isObject(script) && script.id !== undefined)
    throw new EsError('illegal_argument_exception', `stored scripts are not supported in [${type}]`);
  throw new EsError('parsing_exception', `Missing required field [script] for ${type} aggregation [${name}]`);
}

function parseSort(spec: PipelineSpec, name: string, body: Record<string, unknown>): PipelineSpec {
  const from = body.from ?? 0;
  if (typeof from !== 'number' || !Number.isInteger(from) || from < 0)
    throw new EsError(
      'illegal_argument_exception',
      `[from] must be a non-negative integer: [${String(from)}]`,
    );
  spec.from = from;
  if (body.size !== undefined) {
    if (typeof body.size !== 'number' || !Number.isInteger(body.size) || body.size < 1)
      throw new EsError(
        'illegal_argument_exception',
        `[size] must be a positive integer: [${String(body.size)}]`,
      );
    spec.size = body.size;
  }
  const items = body.sort === undefined ? [] : Array.isArray(body.sort) ? body.sort : [body.sort];
  if (items.length > MAX_SORT_FIELDS)
    throw new EsError(
      'illegal_argument_exception',
      `[sort] of [${name}] has more than [${MAX_SORT_FIELDS}] fields`,
    );
  for (const item of items) {
    if (typeof item === 'string') {
      spec.sort.push({ path: checkPath(item, 'bucket_sort', name), asc: true });
      continue;
    }
    if (!isObject(item) || Object.keys(item).length !== 1)
      throw new EsError(
        'parsing_exception',
        `[sort] of [${name}] must hold field names or {field: order} objects`,
      );
    const [[path, order]] = Object.entries(item) as [[string, unknown]];
    const dir = isObject(order) ? order.order : order;
    if (dir !== undefined && dir !== 'asc' && dir !== 'desc')
      throw new EsError('illegal_argument_exception', `Unknown SortOrder [${String(dir)}]`);
    spec.sort.push({ path: checkPath(path, 'bucket_sort', name), asc: dir !== 'desc' });
  }
  if (spec.sort.length === 0 && spec.from === 0 && spec.size === undefined)
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: 1: [${name}] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort;`,
    );
  return spec;
}
