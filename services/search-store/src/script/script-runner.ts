import { ScriptError } from './script-error';
import { compileScript } from './compile-script';
import type { ScriptLimits } from './script-limits';
import { fromJson, toJson, type Value } from './script-values';

/**
 * The seam the document store calls for `_update` and bulk `update` scripts (`ctx._source.count +=
 * params.n`, `ctx.op = 'noop'`). Errors are ScriptError; `toEsError(source)` gives the 400.
 */
export interface ScriptRunner {
  runUpdateScript(
    source: string,
    params: Record<string, unknown>,
    ctx: { _source: Record<string, unknown>; op: string },
  ): { _source: Record<string, unknown>; op: 'index' | 'noop' | 'delete' | 'none' };
}

const OPS = ['index', 'noop', 'delete', 'none'] as const;

export function createScriptRunner(limits: Partial<ScriptLimits> = {}): ScriptRunner {
  return {
    runUpdateScript(source, params, ctx) {
      const script = compileScript(source, limits);
      const convert = { maxDepth: script.limits.maxDepth * 4 };
      const ctxValue = new Map<Value, Value>([
        ['_source', fromJson(ctx._source, convert)],
        ['op', ctx.op],
      ]);
      script.run({ params: fromJson(params, convert), ctx: ctxValue });
      const op = ctxValue.get('op');
      if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
        // Elasticsearch validates ctx.op against the update operations it knows.
        throw new ScriptError(
          'runtime',
          'illegal_argument_exception',
          `op must be one of [delete, index, noop, none], not [${String(op)}]`,
          0,
        );
      }
      const source_ = toJson(ctxValue.get('_source') ?? null, convert);
      if (source_ === null || typeof source_ !== 'object' || Array.isArray(source_)) {
        throw new ScriptError(
          'runtime',
          'illegal_argument_exception',
          'ctx._source must remain an object',
          0,
        );
      }
      return { _source: source_ as Record<string, unknown>, op: op as (typeof OPS)[number] };
    },
  };
}
