/**
 * Bounds on one script: the parser's nesting depth and token count, statements executed (Painless's
 * `script.max_loop_counter`-style guard, here over the whole run), the longest string and collection a
 * script may build, the bytes it may allocate in all (allocation-budget.ts), and a wall-clock deadline
 * checked every 1,024 steps.
 */
export interface ScriptLimits {
  maxDepth: number;
  maxTokens: number;
  maxSteps: number;
  maxStringLength: number;
  maxCollectionSize: number;
  /** Bytes of strings and collection slots one run may allocate, counted cumulatively. */
  maxAllocationBytes: number;
  timeoutMs: number;
}

export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  maxDepth: 64,
  maxTokens: 20_000,
  maxSteps: 1_000_000,
  maxStringLength: 1_048_576,
  maxCollectionSize: 100_000,
  // 16 of the longest strings, or 2M list slots: room for real scripts, far from the heap.
  maxAllocationBytes: 32 * 1024 * 1024,
  timeoutMs: 1_000,
};
