/**
 * Arrays for the postings cache's unpacked copies (postings-cache.ts), used again once a copy is
 * dropped. At 1M documents the cache is full of packed lists, so every search unpacks its lists into
 * fresh arrays and the next search's shrink drops them: a few MB of ArrayBuffers a search, and V8
 * answers that much external memory with a full mark-compact every few searches ("external memory
 * pressure" in --trace-gc). Profiled over HTTP, GC was ~1 s of ~3.4 s of busy time over 800 AND
 * searches, more than the unpacking or the scoring (issue 23).
 *
 * A dropped copy's arrays are retired, not freed at once: a search that got the copy from the cache
 * scores it in the same turn of the event loop (execute-fast-search.ts: lookup, then rankPlans, with no
 * await between), so the arrays are handed out again only from the next turn on. A copy a search
 * holds across an await (PostingsCache#known) is never retired. Free arrays are bounded by bytes; past
 * the bound, retired arrays are left to the garbage collector.
 */
export class UnpackBuffers {
  /** Free pairs, any order. A pair's arrays have `capacity` elements each. */
  private free: Pair[] = [];
  private retired: Pair[] = [];
  private freeBytes = 0;
  private scheduled = false;

  constructor(readonly maxBytes: number) {}

  /** Bytes held by free arrays (outside the cache's budget: its owner bounds them with maxBytes). */
  get bytes(): number {
    return this.freeBytes;
  }

  /**
   * Arrays of `length` elements for one unpack: views of the smallest free pair that holds them and is
   * at most twice as large (a long list's arrays are not spent on a short one), else new arrays.
   */
  take(length: number): { docs: Float64Array; freqs: Int32Array } {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const c = this.free[i]!.capacity;
      if (c >= length && c <= 2 * length && (best < 0 || c < this.free[best]!.capacity)) best = i;
    }
    if (best < 0) return { docs: new Float64Array(length), freqs: new Int32Array(length) };
    const pair = this.free[best]!;
    this.free[best] = this.free[this.free.length - 1]!;
    this.free.pop();
    this.freeBytes -= pairBytes(pair.capacity);
    return { docs: pair.docs.subarray(0, length), freqs: pair.freqs.subarray(0, length) };
  }

  /** The arrays of a copy nothing reads any more (from take, or views of them): free from the next turn. */
  retire(docs: Float64Array, freqs: Int32Array): void {
    const whole = new Float64Array(docs.buffer);
    const wholeFreqs = new Int32Array(freqs.buffer);
    if (whole.length !== wholeFreqs.length) return;
    this.retired.push({ docs: whole, freqs: wholeFreqs, capacity: whole.length });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.release()).unref();
  }

  private release(): void {
    this.scheduled = false;
    for (const pair of this.retired) {
      const bytes = pairBytes(pair.capacity);
      if (this.freeBytes + bytes > this.maxBytes) continue;
      this.free.push(pair);
      this.freeBytes += bytes;
    }
    this.retired = [];
  }
}

interface Pair {
  docs: Float64Array;
  freqs: Int32Array;
  capacity: number;
}

const pairBytes = (capacity: number): number => 12 * capacity;
