import { EsError } from '@acme/common';
import type { AggNode } from '../agg-types';
import { javaDouble } from '../parse-percentiles';

/** One element of a buckets_path: `name`, `name[key]` or (last) `name.metric`. */
export interface PathToken {
  name: string;
  key?: string;
}

/** Elements of one path at most (deeper than any aggregation tree we accept). */
const MAX_TOKENS = 32;

export function invalidPath(reason: string): EsError {
  // Elasticsearch 8's AggregationExecutionException.InvalidPath: a 400.
  return new EsError('aggregation_execution_exception', reason);
}

/**
 * Parses `a>b['k']>c.metric` as Elasticsearch's AggregationPath.parse: `>` separates aggregations,
 * `[key]` picks a bucket of a multi-bucket aggregation, `.name` on the last element picks a value of a
 * multi-value metric (or `_count`, `_key`, `_bucket_count`).
 */
export function parsePath(path: string): PathToken[] {
  const elements = path.split('>');
  if (elements.length > MAX_TOKENS) throw invalidPath(`Invalid path [${path}]`);
  return elements.map((element, i) => {
    const open = element.indexOf('[');
    if (open >= 0) {
      if (open === 0 || !element.endsWith(']') || element.indexOf(']') !== element.length - 1)
        throw invalidPath(`Invalid path element [${element}] in path [${path}]`);
      const key = element.slice(open + 1, -1).replace(/^'(.*)'$/, '$1');
      return { name: element.slice(0, open), key };
    }
    const dot = i === elements.length - 1 ? element.lastIndexOf('.') : -1;
    if (dot < 0) {
      if (element.length === 0) throw invalidPath(`Invalid path [${path}]`);
      return { name: element };
    }
    if (dot === 0 || dot === element.length - 1)
      throw invalidPath(`Invalid path element [${element}] in path [${path}]`);
    return { name: element.slice(0, dot), key: element.slice(dot + 1) };
  });
}

/** An aggregation result read from the rendered response, with the node that produced it. */
type Result = Record<string, unknown>;

const MULTI_BUCKET = new Set([
  'terms',
  'filters',
  'range',
  'date_range',
  'histogram',
  'date_histogram',
  'composite',
  'rare_terms',
  'significant_terms',
]);
const SINGLE_BUCKET = new Set(['filter', 'missing', 'global', 'nested', 'reverse_nested']);

export function isMultiBucket(node: AggNode): boolean {
  return MULTI_BUCKET.has(node.type);
}

/** Elasticsearch's class name for a result, used in its path error messages. */
function className(node: AggNode, result: Result | undefined): string {
  switch (node.type) {
    case 'terms': {
      const first = bucketList(result)[0];
      if (!first) return 'UnmappedTerms';
      return typeof first.key === 'string'
        ? 'StringTerms'
        : Number.isInteger(first.key)
          ? 'LongTerms'
          : 'DoubleTerms';
    }
    case 'histogram':
      return 'InternalHistogram';
    case 'date_histogram':
      return 'InternalDateHistogram';
    case 'filters':
      return 'InternalFilters';
    case 'filter':
      return 'InternalFilter';
    case 'range':
      return 'InternalRange';
    case 'date_range':
      return 'InternalDateRange';
    case 'stats':
      return 'InternalStats';
    case 'top_hits':
      return 'InternalTopHits';
    default:
      return `Internal${node.type.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`;
  }
}

/** The buckets of a rendered multi-bucket result, in response order (keyed results too). */
export function bucketList(result: Result | undefined): Result[] {
  const buckets = result?.buckets;
  if (Array.isArray(buckets)) return buckets as Result[];
  if (buckets !== null && typeof buckets === 'object') return Object.values(buckets) as Result[];
  return [];
}

function own(obj: Result, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (v === null || v === undefined) return null;
  return NaN;
}

/** The bucket whose key (or key_as_string) is `key`. */
function bucketByKey(result: Result | undefined, key: string): Result | undefined {
  const buckets = result?.buckets;
  if (buckets !== null && typeof buckets === 'object' && !Array.isArray(buckets)) {
    const hit = own(buckets as Result, key);
    if (hit) return hit as Result;
  }
  return bucketList(result).find((b) => String(b.key) === key || b.key_as_string === key);
}

/**
 * The number a path names inside `bucket` (a bucket object of the response, or the top level), as
 * Elasticsearch's InternalMultiBucketAggregation.InternalBucket.getProperty: null when the metric has
 * no value (an empty bucket's avg). `subs` are the aggregations declared at that level.
 */
export function resolveInBucket(
  bucket: Result,
  subs: AggNode[],
  tokens: PathToken[],
  path: string,
): number | null {
  const [head, ...rest] = tokens as [PathToken, ...PathToken[]];
  if (head.name === '_count' && rest.length === 0 && head.key === undefined)
    return toNumber(bucket.doc_count);
  if (head.name === '_key' && rest.length === 0 && head.key === undefined) {
    const key = bucket.key;
    return typeof key === 'number' ? key : NaN;
  }
  const node = subs.find((s) => s.name === head.name);
  const result = own(bucket, head.name) as Result | undefined;
  // A pipeline that wrote nothing in this bucket (a derivative's first bucket) is a gap, as in ES.
  if (node?.type === 'pipeline' && !result && rest.length === 0) return null;
  if (!node || !result) throw invalidPath(`No aggregation found for path [${path}]`);
  if (rest.length > 0) {
    if (SINGLE_BUCKET.has(node.type) && head.key === undefined)
      return resolveInBucket(result, node.subs, rest, path);
    if (isMultiBucket(node) && head.key !== undefined) {
      const picked = bucketByKey(result, head.key);
      if (!picked)
        throw invalidPath(`No bucket with key [${head.key}] found in [${head.name}] for path [${path}]`);
      return resolveInBucket(picked, node.subs, rest, path);
    }
    throw notANumber(isMultiBucket(node) ? 'Object[]' : className(node, result), head.name);
  }
  return valueOf(node, result, head, path);
}

function notANumber(got: string, at: string): EsError {
  return invalidPath(
    `buckets_path must reference either a number value or a single value numeric metric aggregation, got: [${got}] at aggregation [${at}]`,
  );
}

/** The value of the last element: a metric's value, one value of a multi-value metric, or a count. */
function valueOf(node: AggNode, result: Result, token: PathToken, path: string): number | null {
  const { key } = token;
  if (isMultiBucket(node)) {
    if (key === '_bucket_count') return bucketList(result).length;
    if (key === undefined) throw notANumber(className(node, result), node.name);
    const picked = bucketByKey(result, key);
    if (!picked) throw invalidPath(`No bucket with key [${key}] found in [${node.name}] for path [${path}]`);
    return toNumber(picked.doc_count);
  }
  if (SINGLE_BUCKET.has(node.type)) {
    if (key === '_count' || key === 'doc_count') return toNumber(result.doc_count);
    throw notANumber(className(node, result), node.name);
  }
  if (key === undefined) {
    if (Object.hasOwn(result, 'value')) return toNumber(result.value);
    // Percentiles without a percent: the first one (as Elasticsearch's value() of a multi-value metric).
    const values = result.values;
    if (Array.isArray(values) && values.length > 0) return toNumber((values[0] as Result).value);
    if (values !== null && typeof values === 'object' && !Array.isArray(values)) {
      const first = Object.values(values)[0];
      if (first !== undefined) return toNumber(first);
    }
    throw notANumber(className(node, result), node.name);
  }
  if (key !== 'values' && key !== 'buckets' && key !== 'meta' && Object.hasOwn(result, key)) {
    const v = result[key];
    if (v === null || typeof v === 'number') return v;
  }
  const values = result.values;
  if (values !== null && typeof values === 'object') {
    const hit = Array.isArray(values)
      ? (values as Result[]).find((e) => String(e.key) === key || Number(e.key) === Number(key))?.value
      : (own(values as Result, key) ?? own(values as Result, javaDouble(Number(key))));
    if (hit !== undefined) return toNumber(hit);
  }
  throw invalidPath(`path not supported for [${node.name}]: [${key}]`);
}
