import type { EsError } from '@acme/common';
import { AllocationBudget } from './allocation-budget';
import type { Program } from './ast';
import { Interpreter, type ScriptEnv } from './interpreter';
import { parseScript } from './parser';
import { ScriptError } from './script-error';
import { DEFAULT_SCRIPT_LIMITS, type ScriptLimits } from './script-limits';
import { ScriptRuntime } from './script-runtime';
import type { Value } from './script-values';

/** A parsed script, ready to run many times (once per document for runtime fields). */
export interface CompiledScript {
  readonly source: string;
  readonly limits: ScriptLimits;
  /**
   * Runs once; `deadline` (epoch ms) defaults to now + limits.timeoutMs, `budget` to a fresh one of
   * limits.maxAllocationBytes (pass one to keep charging the result's conversion). Throws ScriptError.
   */
  run(env: ScriptEnv, deadline?: number, budget?: AllocationBudget): Value;
  /** The `script_exception` for an error this script threw. */
  toEsError(error: ScriptError): EsError;
}

/** Parses `source` (compile errors throw ScriptError of kind 'compile'). No eval, no Function: a tree walker. */
export function compileScript(source: string, limits: Partial<ScriptLimits> = {}): CompiledScript {
  const effective: ScriptLimits = { ...DEFAULT_SCRIPT_LIMITS, ...limits };
  const program: Program = guardStack('compile', () => parseScript(source, effective));
  return {
    source,
    limits: effective,
    run(
      env,
      deadline = Date.now() + effective.timeoutMs,
      budget = new AllocationBudget(effective.maxAllocationBytes),
    ) {
      const runtime = new ScriptRuntime(effective, deadline, budget);
      return guardStack('runtime', () => new Interpreter(runtime, env).run(program));
    },
    toEsError: (error) => error.toEsError(source),
  };
}

/** The depth limits keep recursion bounded; should the JS stack still run out, fail as a script error. */
function guardStack<T>(kind: 'compile' | 'runtime', body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (error instanceof RangeError)
      throw new ScriptError(kind, 'stack_overflow_error', 'script is nested too deeply', 0);
    throw error;
  }
}
