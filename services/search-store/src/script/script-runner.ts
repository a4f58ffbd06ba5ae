import { EsError } from '@acme/common';
import { compileScript, type CompiledScript } from './compile-script';
import { ScriptError } from './script-error';
import type { ScriptLimits } from './script-limits';
import { sourceTooLarge } from '../source/source-too-large';
import { AllocationBudget } from './allocation-budget';
import { fromJson, JsonTooLarge, toJson, type Value } from './script-values';

/** The update context a script sees as `ctx` (ES Update API with `script`). */
export interface UpdateScriptContext {
  /** The document being updated (the script may change it). */
  _source: Record<string, unknown>;
  /** `index` (write the new source), `none`/`noop` (no change), `delete`, or `create` in a scripted upsert. */
  op: 'index' | 'none' | 'noop' | 'delete' | 'create';
  _id?: string;
  _index?: string;
  _version?: number;
  /** Epoch millis at the start of the request (`ctx._now`). */
  _now?: number;
}

/**
 * The seam the document store calls for `_update` and bulk `update` scripts (`ctx._source.count +=
 * params.n`, `ctx.op = 'noop'`). Failures throw EsError in Elasticsearch's shape (see below).
 */
export interface ScriptRunner {
  runUpdateScript(
    source: string,
    params: Record<string, unknown>,
    ctx: UpdateScriptContext,
    options?: UpdateScriptOptions,
  ): UpdateScriptContext;
}

export interface UpdateScriptOptions {
  /**
   * The most bytes the new `_source` may take as JSON (MAX_REQUEST_BYTES: a document the script writes
   * can be no larger than one a client could send). Checked while converting, before any serialising.
   */
  maxSourceBytes?: number;
}

const OPS = ['index', 'noop', 'delete', 'none', 'create'] as const;
const CACHE_SIZE = 256;

/**
 * Elasticsearch's UpdateHelper wraps script failures: 400 illegal_argument_exception "failed to execute
 * script" caused by the script_exception (which root_cause lists, without its own cause).
 */
function failedToExecute(script: ScriptError, source: string): EsError {
  const cause = script.toEsError(source).toCause();
  const { caused_by: _inner, ...rootCause } = cause;
  return new EsError('illegal_argument_exception', 'failed to execute script', {
    causedBy: cause,
    rootCause: [rootCause],
  });
}

export function createScriptRunner(limits: Partial<ScriptLimits> = {}): ScriptRunner {
  // A bulk request usually repeats one script: compile each source once (small LRU by insertion order).
  const cache = new Map<string, CompiledScript>();
  const compiled = (source: string): CompiledScript => {
    const hit = cache.get(source);
    if (hit) return hit;
    const script = compileScript(source, limits);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(source, script);
    return script;
  };
  return {
    runUpdateScript(source, params, ctx, options = {}) {
      try {
        const script = compiled(source);
        const convert = { maxDepth: script.limits.maxDepth * 4 };
        // One budget for the run and the conversion of its result: both allocate on the script's behalf.
        const budget = new AllocationBudget(script.limits.maxAllocationBytes);
        const ctxValue = new Map<Value, Value>([
          ['_source', fromJson(ctx._source, convert)],
          ['op', ctx.op],
        ]);
        // Read-only metadata Painless exposes on ctx (the script may read, not usefully change, them).
        for (const key of ['_id', '_index', '_version', '_now'] as const) {
          const value = ctx[key];
          if (value !== undefined) ctxValue.set(key, fromJson(value, convert));
        }
        script.run({ params: fromJson(params, convert), ctx: ctxValue }, undefined, budget);
        const op = ctxValue.get('op');
        if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
          throw new EsError(
            'illegal_argument_exception',
            `op must be one of [delete, index, noop, none], not [${String(op)}]`,
          );
        }
        const result = toJson(ctxValue.get('_source') ?? null, {
          ...convert,
          budget,
          maxJsonBytes: options.maxSourceBytes,
        });
        if (result === null || typeof result !== 'object' || Array.isArray(result)) {
          throw new EsError('illegal_argument_exception', 'ctx._source must remain an object');
        }
        return { ...ctx, _source: result as Record<string, unknown>, op: op as (typeof OPS)[number] };
      } catch (error) {
        if (error instanceof ScriptError) throw failedToExecute(error, source);
        if (error instanceof JsonTooLarge) throw sourceTooLarge(error.limit);
        throw error;
      }
    },
  };
}
