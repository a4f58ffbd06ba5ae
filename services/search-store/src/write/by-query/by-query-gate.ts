import type { Pool } from 'pg';

/**
 * How many by-queries one instance runs at once per pool. Each holds one connection for its snapshot
 * (the scroll) and takes a second for each batch's write: without a bound, as many running by-queries
 * as the pool has connections would each hold one and wait forever for another. A quarter of the pool
 * (at least one) leaves the rest to searches and writes; the others wait their turn, in order.
 */
export class ByQueryGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly capacity: number) {}

  async acquire(): Promise<() => void> {
    if (this.running >= this.capacity) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; `running` only drops when nobody waits.
      if (next) next();
      else this.running -= 1;
    };
  }
}

const GATES = new WeakMap<Pool, ByQueryGate>();

export function byQueryGateFor(pool: Pool): ByQueryGate {
  let gate = GATES.get(pool);
  if (!gate) {
    const max = (pool as Pool & { options?: { max?: number } }).options?.max ?? 10;
    gate = new ByQueryGate(Math.max(1, Math.floor(max / 4)));
    GATES.set(pool, gate);
  }
  return gate;
}
