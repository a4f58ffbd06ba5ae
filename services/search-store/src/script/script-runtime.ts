import { ScriptError } from './script-error';
import type { ScriptLimits } from './script-limits';
import { javaString, typeOfValue, type Value } from './script-values';

/** What the interpreter and the built-in methods share: limits and the step/time budget. */
export class ScriptRuntime {
  private steps = 0;

  constructor(
    readonly limits: ScriptLimits,
    /** Absolute epoch-ms deadline; runtime fields share one across all documents of a request. */
    private readonly deadline: number,
  ) {}

  step(at: number): void {
    this.steps += 1;
    if (this.steps > this.limits.maxSteps) {
      throw new ScriptError(
        'runtime',
        'painless_error',
        'The maximum number of statements that can be executed in a loop has been reached.',
        at,
      );
    }
    if ((this.steps & 1023) === 0 && Date.now() > this.deadline) {
      throw new ScriptError(
        'runtime',
        'painless_error',
        `script execution exceeded the time limit of [${this.limits.timeoutMs}ms]`,
        at,
      );
    }
  }

  checkString(s: string, at: number): string {
    if (s.length > this.limits.maxStringLength) {
      throw new ScriptError(
        'runtime',
        'painless_error',
        `string length [${s.length}] exceeds the limit of [${this.limits.maxStringLength}] characters`,
        at,
      );
    }
    return s;
  }

  checkSize(size: number, at: number): void {
    if (size > this.limits.maxCollectionSize) {
      throw new ScriptError(
        'runtime',
        'painless_error',
        `collection size [${size}] exceeds the limit of [${this.limits.maxCollectionSize}] elements`,
        at,
      );
    }
  }

  /** Java string conversion under the string limit (a huge list must not print itself unbounded). */
  stringOf(v: Value, at: number): string {
    return this.checkString(javaString(v), at);
  }
}

export function fail(causeType: string, message: string, at: number): never {
  throw new ScriptError('runtime', causeType, message, at);
}

export function npe(what: string, at: number): never {
  fail('null_pointer_exception', `cannot ${what} of a null value`, at);
}

export function castError(v: Value, to: string, at: number): never {
  fail('class_cast_exception', `Cannot cast [${typeOfValue(v)}] to [${to}].`, at);
}

/** Java int index for lists and strings; Painless lets lists take negative indices from the end. */
export function toIndex(v: Value, at: number): number {
  if (typeof v === 'bigint') return Number(v);
  return castError(v, 'int', at);
}
