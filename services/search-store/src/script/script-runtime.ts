import { AllocationBudget, CHAR_BYTES, SLOT_BYTES } from './allocation-budget';
import { ScriptError } from './script-error';
import type { ScriptLimits } from './script-limits';
import { javaString, typeOfValue, type Value } from './script-values';

/** What the interpreter and the built-in methods share: limits, the step/time and allocation budgets. */
export class ScriptRuntime {
  private steps = 0;

  constructor(
    readonly limits: ScriptLimits,
    /** Absolute epoch-ms deadline; runtime fields share one across all documents of a request. */
    private readonly deadline: number,
    readonly budget: AllocationBudget = new AllocationBudget(limits.maxAllocationBytes),
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

  /** Checks and charges a string of `length` code units before it is built. */
  reserveString(length: number, at: number): void {
    if (length > this.limits.maxStringLength) {
      throw new ScriptError(
        'runtime',
        'painless_error',
        `string length [${length}] exceeds the limit of [${this.limits.maxStringLength}] characters`,
        at,
      );
    }
    this.budget.charge(length * CHAR_BYTES, at);
  }

  /** A string the script just made: checked and charged. */
  checkString(s: string, at: number): string {
    this.reserveString(s.length, at);
    return s;
  }

  /** A string derived from one the script already holds (trim, case, substring, split): charged only. */
  chargeString(length: number, at: number): void {
    this.budget.charge(length * CHAR_BYTES, at);
  }

  /** `count` new list elements or map entries (copies included), charged before they are made. */
  chargeSlots(count: number, at: number): void {
    this.budget.charge(count * SLOT_BYTES, at);
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

  /** Java string conversion under the string limit: a huge list stops printing itself at the limit. */
  stringOf(v: Value, at: number): string {
    if (typeof v === 'string') return v; // no new string: nothing to charge
    return this.checkString(javaString(v, { maxLength: this.limits.maxStringLength, at }), at);
  }

  /** `a + b` on strings: the result is checked and charged before it is built. */
  concat(a: string, b: string, at: number): string {
    this.reserveString(a.length + b.length, at);
    return a + b;
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
