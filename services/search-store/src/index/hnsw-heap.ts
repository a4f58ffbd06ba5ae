/**
 * A binary heap of (node ordinal, similarity) pairs in typed arrays, for the HNSW searches: `max`
 * pops the most similar first (the candidate queue), otherwise the least similar (the result set,
 * whose top is the one to evict).
 */
export class NodeHeap {
  private ids: Int32Array;
  private sims: Float64Array;
  size = 0;

  constructor(
    private readonly max: boolean,
    capacity = 64,
  ) {
    this.ids = new Int32Array(capacity);
    this.sims = new Float64Array(capacity);
  }

  clear(): void {
    this.size = 0;
  }

  topId(): number {
    return this.ids[0]!;
  }

  topSim(): number {
    return this.sims[0]!;
  }

  private before(a: number, b: number): boolean {
    return this.max ? this.sims[a]! > this.sims[b]! : this.sims[a]! < this.sims[b]!;
  }

  private swap(a: number, b: number): void {
    const id = this.ids[a]!;
    const sim = this.sims[a]!;
    this.ids[a] = this.ids[b]!;
    this.sims[a] = this.sims[b]!;
    this.ids[b] = id;
    this.sims[b] = sim;
  }

  push(id: number, sim: number): void {
    if (this.size === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      ids.set(this.ids);
      const sims = new Float64Array(this.sims.length * 2);
      sims.set(this.sims);
      this.ids = ids;
      this.sims = sims;
    }
    let i = this.size++;
    this.ids[i] = id;
    this.sims[i] = sim;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): number {
    const top = this.ids[0]!;
    this.size -= 1;
    if (this.size > 0) {
      this.ids[0] = this.ids[this.size]!;
      this.sims[0] = this.sims[this.size]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < this.size && this.before(l, best)) best = l;
        if (r < this.size && this.before(r, best)) best = r;
        if (best === i) break;
        this.swap(i, best);
        i = best;
      }
    }
    return top;
  }

  /** The contents, most similar first (empties the heap). */
  drainBestFirst(): { ids: number[]; sims: number[] } {
    const ids: number[] = [];
    const sims: number[] = [];
    while (this.size > 0) {
      sims.push(this.topSim());
      ids.push(this.pop());
    }
    if (!this.max) {
      ids.reverse();
      sims.reverse();
    }
    return { ids, sims };
  }
}
