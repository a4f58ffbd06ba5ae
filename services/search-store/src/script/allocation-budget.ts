import { ScriptError } from './script-error';

/** What one UTF-16 code unit of a string costs (V8 keeps two-byte strings; one-byte ones cost less). */
export const CHAR_BYTES = 2;
/** What one list element or map entry costs: a slot and its share of the backing store. */
export const SLOT_BYTES = 16;

/**
 * A cumulative allocation budget for one script run (issue 17: a 200-byte update script grew a
 * document to 524 MB and the process to 1.17 GB). Every string a script builds and every slot a list or
 * map gains is charged before it is made, and nothing is refunded: the budget bounds the work of the
 * run, not only what it keeps. Painless has no such limit and relies on the JVM heap and the
 * circuit breakers, so past it the run fails as a tripped breaker would:
 * `circuit_breaking_exception` "[script] Data too large" (ES CircuitBreakingException).
 */
export class AllocationBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  charge(bytes: number, at: number): void {
    this.used += bytes;
    if (this.used > this.limit) {
      throw new ScriptError(
        'runtime',
        'circuit_breaking_exception',
        `[script] Data too large, data for [script allocations] would be [${byteSize(this.used)}], which is larger than the limit of [${byteSize(this.limit)}]`,
        at,
      );
    }
  }

  get allocated(): number {
    return this.used;
  }
}

/** ES ByteSizeValue as a breaker prints it: `33554432/32mb`. */
function byteSize(bytes: number): string {
  const units = ['b', 'kb', 'mb', 'gb', 'tb'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${bytes}/${shown}${units[unit]}`;
}
