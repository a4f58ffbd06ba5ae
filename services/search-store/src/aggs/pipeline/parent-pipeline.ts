import { EsError } from '@acme/common';
import { compileScript, type CompiledScript } from '../../script/compile-script';
import { ScriptError } from '../../script/script-error';
import { fromJson, type Value } from '../../script/script-values';
import type { AggNode } from '../agg-types';
import { bucketList, invalidPath, parsePath, resolveInBucket } from './buckets-path';
import { formatDecimal } from './decimal-format';
import { gapValue } from './gap-value';
import type { PipelineSpec } from './pipeline-types';

type Result = Record<string, unknown>;

/** A value result (InternalSimpleValue): NaN and infinities render as null. */
function simpleValue(value: number, format: string | undefined): Result {
  const real = Number.isFinite(value);
  const out: Result = { value: real ? value : null };
  if (format !== undefined && real) out.value_as_string = formatDecimal(format, value);
  return out;
}

function valueAt(bucket: Result, parent: AggNode, path: string, spec: PipelineSpec): number {
  const tokens = parsePath(path);
  const raw = resolveInBucket(bucket, parent.subs, tokens, path);
  const isCount = tokens.length === 1 && tokens[0]?.name === '_count';
  return gapValue(raw, bucket.doc_count, spec.gapPolicy, isCount);
}

/** Replaces the parent's buckets by `kept` (in that order), keyed or not as they were. */
function replaceBuckets(result: Result, kept: Result[]): void {
  const buckets = result.buckets;
  if (Array.isArray(buckets)) {
    result.buckets = kept;
    return;
  }
  const keep = new Set(kept);
  const entries = Object.entries(buckets as Result).filter(([, b]) => keep.has(b as Result));
  const order = new Map(kept.map((b, i) => [b, i]));
  entries.sort(([, a], [, b]) => (order.get(a as Result) as number) - (order.get(b as Result) as number));
  // Keys are bucket keys (client strings for ranges and filters): a null-prototype object.
  const out = Object.create(null) as Result;
  for (const [k, b] of entries) out[k] = b;
  result.buckets = out;
}

function compile(source: string): CompiledScript {
  try {
    return compileScript(source);
  } catch (error) {
    if (error instanceof ScriptError) throw error.toEsError(source);
    throw error;
  }
}

/** Runs a bucket_script / bucket_selector script with `params` = its params plus the path variables. */
function runScript(
  script: CompiledScript,
  params: Value,
  vars: Map<string, number>,
  deadline: number,
): Value {
  const all = new Map<Value, Value>(params instanceof Map ? params : []);
  for (const [name, v] of vars) all.set(name, v);
  try {
    return script.run({ params: all }, Math.min(deadline, Date.now() + script.limits.timeoutMs));
  } catch (error) {
    if (error instanceof ScriptError) throw script.toEsError(error);
    throw error;
  }
}

/**
 * Applies one parent pipeline to the rendered buckets of `parent` (ES CumulativeSumPipelineAggregator,
 * DerivativePipelineAggregator, BucketScriptPipelineAggregator, BucketSelectorPipelineAggregator,
 * BucketSortPipelineAggregator).
 */
export function applyParentPipeline(
  name: string,
  spec: PipelineSpec,
  parent: AggNode,
  result: Result,
  deadline: number,
  meta: unknown,
): void {
  const buckets = bucketList(result);
  const put = (bucket: Result, value: Result): void => {
    bucket[name] = meta === undefined ? value : { meta, ...value };
  };
  const path = spec.paths.get('_value');
  switch (spec.kind) {
    case 'cumulative_sum': {
      let sum = 0;
      for (const bucket of buckets) {
        const v = resolveInBucket(bucket, parent.subs, parsePath(path as string), path as string);
        if (v !== null && Number.isFinite(v)) sum += v;
        put(bucket, simpleValue(sum, spec.format));
      }
      return;
    }
    case 'derivative': {
      let lastKey: number | undefined;
      let lastValue: number | undefined;
      for (const bucket of buckets) {
        const key = Number(bucket.key);
        const value = valueAt(bucket, parent, path as string, spec);
        if (lastValue !== undefined && lastKey !== undefined) {
          const gradient = value - lastValue;
          const out = simpleValue(gradient, spec.format);
          if (spec.unitMs !== undefined) {
            const xDiff = (key - lastKey) / spec.unitMs;
            const normalized = xDiff > 0 ? gradient / xDiff : gradient;
            out.normalized_value = Number.isFinite(normalized) ? normalized : null;
            if (spec.format !== undefined && Number.isFinite(normalized))
              out.normalized_value_as_string = formatDecimal(spec.format, normalized);
          }
          put(bucket, out);
        }
        lastKey = key;
        lastValue = value;
      }
      return;
    }
    case 'bucket_script':
    case 'bucket_selector': {
      const script = compile(spec.script?.source as string);
      const params = fromJson(spec.script?.params ?? {}, { maxDepth: 64 });
      const kept: Result[] = [];
      for (const bucket of buckets) {
        const vars = new Map<string, number>();
        let skip = false;
        for (const [variable, p] of spec.paths) {
          const v = valueAt(bucket, parent, p, spec);
          if (spec.kind === 'bucket_script' && spec.gapPolicy === 'skip' && Number.isNaN(v)) skip = true;
          vars.set(variable, v);
        }
        if (skip) {
          kept.push(bucket);
          continue;
        }
        const out = runScript(script, params, vars, deadline);
        if (spec.kind === 'bucket_selector') {
          if (typeof out !== 'boolean')
            throw invalidPath(`bucket_selector script for [${name}] must return a boolean`);
          if (out) kept.push(bucket);
          continue;
        }
        kept.push(bucket);
        if (out === null) continue;
        if (typeof out !== 'number' && typeof out !== 'bigint')
          throw invalidPath(`series_arithmetic script for reducer [${name}] must return a Number`);
        put(bucket, simpleValue(Number(out), spec.format));
      }
      if (spec.kind === 'bucket_selector') replaceBuckets(result, kept);
      return;
    }
    case 'bucket_sort': {
      const keyed = buckets.map((bucket, i) => ({
        bucket,
        i,
        values: spec.sort.map((s) =>
          s.path === '_key' ? bucket.key : valueAt(bucket, parent, s.path, spec),
        ),
      }));
      keyed.sort((a, b) => {
        for (const [j, s] of spec.sort.entries()) {
          const x = a.values[j];
          const y = b.values[j];
          const missingX = typeof x === 'number' && Number.isNaN(x);
          const missingY = typeof y === 'number' && Number.isNaN(y);
          // Buckets without a value (gaps) sort last in either direction.
          if (missingX || missingY) {
            if (missingX !== missingY) return missingX ? 1 : -1;
            continue;
          }
          const d = compareSortValues(x, y);
          if (d !== 0) return s.asc ? d : -d;
        }
        return a.i - b.i;
      });
      const end = spec.size === undefined ? keyed.length : spec.from + spec.size;
      replaceBuckets(
        result,
        keyed.slice(spec.from, end).map((k) => k.bucket),
      );
      return;
    }
    default:
      throw new EsError('illegal_state_exception', `[${spec.kind}] is not a parent pipeline`);
  }
}

function compareSortValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
