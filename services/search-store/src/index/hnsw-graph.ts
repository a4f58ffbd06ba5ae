import { NodeHeap } from './hnsw-heap';
import { createCodeKernel, createKernel, type CodeKernel, type DistanceKernel } from './simd-distance';

/** WebAssembly page size. */
const PAGE = 65536;
import type { Similarity } from './vector-similarity';

/** A node found by a search: its doc key and its raw similarity (dot product, or −l2² for l2_norm). */
export interface VectorHit {
  docKey: number;
  sim: number;
}

export interface GraphOptions {
  dims: number;
  similarity: Similarity;
  /** False for flat fields: vectors only, exact search only. */
  linked: boolean;
  m: number;
  efConstruction: number;
  /**
   * Scalar quantisation (int8_hnsw, int4_hnsw): each vector also kept as integer codes, and the
   * graph walked on them; the candidates found are re-scored with the float vectors. Absent: floats only.
   */
  quantization?: Quantization;
  /**
   * Walk the graph on codes while inserting even when searches use floats (hnsw): the neighbour
   * choice still compares floats (the candidates re-scored first), so the graph is nearly the same.
   */
  quantizedBuild?: boolean;
}

export interface Quantization {
  /** 8: codes in [-127, 127]; 4: in [-7, 7] (int4_hnsw). */
  bits: 8 | 4;
  /**
   * ES's `confidence_interval`: the share of a vector's values inside the clipping bound (0.9–1.0);
   * undefined or 0 (ES's "dynamic"): the largest absolute value.
   */
  confidenceInterval?: number;
}

/**
 * One field's vectors in memory and, for hnsw fields, their HNSW graph (Malkov & Yashunin 2018,
 * "Efficient and robust approximate nearest neighbor search using Hierarchical Navigable Small World
 * graphs"): layer 0 holds every node with up to 2·M links, each upper layer a geometrically thinner
 * sample with up to M; neighbours are chosen with the paper's heuristic (algorithm 4). Nodes are
 * ordinals in insertion order; the persisted form (hnsw_nodes) names neighbours by doc key.
 * Cosine vectors are kept normalised so every similarity but l2_norm is a dot product.
 */
export class HnswGraph {
  size = 0;
  entry = -1;
  maxLevel = -1;
  tombstones = 0;
  /** Ordinals whose links changed since the last `takeDirty` (the writer persists them). */
  private dirty = new Set<number>();
  /** Vectors in the kernel's memory: slot 0 is the query scratch, node o at slot o + 1, `stride` floats each. */
  private readonly kernel: DistanceKernel;
  private readonly stride: number;
  private vectors: Float32Array;
  private docKeys: Float64Array;
  private levels: Int8Array;
  private deletedBits: Uint8Array;
  private links0: Int32Array;
  /**
   * The similarity of each layer-0 link (NaN: not known yet, e.g. after a load or a repair): a full
   * list's shrink reads them instead of computing 2·M + 1 distances again.
   */
  private sims0: Float32Array;
  private counts0: Uint16Array;
  private upper = new Map<number, Int32Array[]>();
  private upperSims = new Map<number, Float32Array[]>();
  private readonly ordinals = new Map<number, number>();
  private visited: Uint32Array;
  private visitTag = 0;
  private readonly m0: number;
  private readonly levelFactor: number;
  /** Reused by every layer search (drained by the caller before the next one; all of it is synchronous). */
  private readonly candidateHeap = new NodeHeap(true, 256);
  private readonly resultHeap = new NodeHeap(false, 256);
  /** Codes (quantised vectors): slot 0 the query's, node o at slot o + 1, `codeStride` bytes each. */
  private readonly codeKernel: CodeKernel | undefined;
  private readonly codeStride: number;
  private readonly codeLevels: number;
  private codeScales: Float32Array;
  /** ‖v‖² of each node (l2_norm's walk on codes: ‖a − b‖² = ‖a‖² + ‖b‖² − 2·a·b). */
  private codeNorms: Float32Array;
  /** While true, walks compare codes: the query's code is in slot 0 with these scale and norm. */
  private coded = false;
  private queryScale = 0;
  private queryNorm = 0;
  /** Scratch of `link`'s shrink. */
  private shrinkIds = new Int32Array(64);
  private shrinkSims = new Float64Array(64);

  constructor(readonly options: GraphOptions) {
    const capacity = 1024;
    this.stride = Math.max(16, Math.ceil(options.dims / 16) * 16);
    this.kernel = createKernel(Math.ceil(((capacity + 1) * this.stride * 4) / PAGE));
    this.vectors = new Float32Array(this.kernel.memory.buffer);
    this.docKeys = new Float64Array(capacity);
    this.levels = new Int8Array(capacity);
    this.deletedBits = new Uint8Array(capacity);
    this.m0 = options.m * 2;
    this.links0 = options.linked ? new Int32Array(capacity * this.m0) : new Int32Array(0);
    this.sims0 = options.linked ? new Float32Array(capacity * this.m0) : new Float32Array(0);
    this.counts0 = new Uint16Array(capacity);
    this.visited = new Uint32Array(capacity);
    this.levelFactor = 1 / Math.log(Math.max(2, options.m));
    const codes = options.linked && (options.quantization !== undefined || options.quantizedBuild === true);
    this.codeStride = this.stride;
    this.codeLevels = options.quantization?.bits === 4 ? 7 : 127;
    this.codeKernel = codes
      ? createCodeKernel(Math.ceil(((capacity + 1) * this.codeStride) / PAGE))
      : undefined;
    this.codeScales = new Float32Array(codes ? capacity : 0);
    this.codeNorms = new Float32Array(codes ? capacity : 0);
  }

  /**
   * Quantises a (prepared) vector into the code slot at byte offset `at`: symmetric, per vector (ES
   * quantises per segment between two quantiles; one graph here grows a write at a time, and a
   * per-vector scale needs no statistics kept in step): v[i] ≈ code[i] · scale, the bound being
   * the largest |v[i]|, or its `confidence_interval` quantile with the values beyond clipped.
   * Returns the scale.
   */
  private quantize(vector: ArrayLike<number>, at: number): number {
    const dims = this.options.dims;
    const ci = this.options.quantization?.confidenceInterval;
    let bound = 0;
    if (ci !== undefined && ci > 0 && ci < 1) {
      const sorted = Float32Array.from({ length: dims }, (_, i) => Math.abs(vector[i]!)).sort();
      bound = sorted[Math.min(dims - 1, Math.max(0, Math.ceil(ci * dims) - 1))]!;
    } else {
      for (let i = 0; i < dims; i++) bound = Math.max(bound, Math.abs(vector[i]!));
    }
    const codes = new Int8Array(this.codeKernel!.memory.buffer, at, this.codeStride);
    const levels = this.codeLevels;
    const scale = bound > 0 ? bound / levels : 0;
    for (let i = 0; i < dims; i++) {
      const q = scale > 0 ? Math.round(vector[i]! / scale) : 0;
      codes[i] = q > levels ? levels : q < -levels ? -levels : q;
    }
    return scale;
  }

  /** sim of the query's code (slot 0) and a node's code: the walks' approximation. */
  private simCode(ordinal: number): number {
    const dot =
      this.codeKernel!.dot8(0, (ordinal + 1) * this.codeStride, this.codeStride) *
      this.queryScale *
      this.codeScales[ordinal]!;
    return this.options.similarity === 'l2_norm' ? 2 * dot - this.queryNorm - this.codeNorms[ordinal]! : dot;
  }

  /** Puts a query's code in slot 0 for the walks that follow (`coded` turns them on). */
  private codeQuery(query: ArrayLike<number>): void {
    this.queryScale = this.quantize(query, 0);
    let norm = 0;
    for (let i = 0; i < this.options.dims; i++) norm += query[i]! * query[i]!;
    this.queryNorm = norm;
  }

  /** Whether this graph keeps codes (quantised, or built on codes). */
  get hasCodes(): boolean {
    return this.codeKernel !== undefined;
  }

  get live(): number {
    return this.size - this.tombstones;
  }

  has(docKey: number): boolean {
    return this.ordinals.has(docKey);
  }

  ordinalOf(docKey: number): number | undefined {
    return this.ordinals.get(docKey);
  }

  docKeyOf(ordinal: number): number {
    return this.docKeys[ordinal]!;
  }

  isDeleted(ordinal: number): boolean {
    return this.deletedBits[ordinal] === 1;
  }

  vectorOf(ordinal: number): Float32Array {
    const at = (ordinal + 1) * this.stride;
    return this.vectors.subarray(at, at + this.options.dims);
  }

  /** Byte offset of a node's vector in the kernel's memory. */
  private addr(ordinal: number): number {
    return (ordinal + 1) * this.stride * 4;
  }

  /** sim of the vector at byte offset `q` (the scratch, or a node's) and a node, in SIMD. */
  private simAt(q: number, ordinal: number): number {
    if (this.coded) return this.simCode(ordinal);
    return this.options.similarity === 'l2_norm'
      ? -this.kernel.l2(q, this.addr(ordinal), this.stride)
      : this.kernel.dot(q, this.addr(ordinal), this.stride);
  }

  /** Puts a query into the scratch slot; returns its byte offset. */
  private scratch(query: Float32Array): number {
    this.vectors.set(query.subarray(0, this.options.dims), 0);
    return 0;
  }

  /** The level a doc key's node gets: from a hash of the key, so a reload or a replica draws the same. */
  levelFor(docKey: number): number {
    let h = (Math.imul(docKey | 0, 0x9e3779b1) ^ Math.imul((docKey / 2 ** 32) | 0, 0x85ebca6b)) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
    h = Math.imul(h, 0x7feb352d) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
    const uniform = (h + 1) / 2 ** 32;
    return Math.min(16, Math.floor(-Math.log(uniform) * this.levelFactor));
  }

  /** The vector as the graph compares it (normalised for cosine). */
  prepare(values: ArrayLike<number>): Float32Array {
    const v = Float32Array.from(values);
    if (this.options.similarity === 'cosine') {
      let norm = 0;
      for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
      norm = Math.sqrt(norm);
      if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
    }
    return v;
  }

  /** Higher is more similar: the dot product, or −‖a−b‖² for l2_norm. */
  sim(query: Float32Array, ordinal: number): number {
    const d = this.options.dims;
    const base = (ordinal + 1) * this.stride;
    const vs = this.vectors;
    let sum = 0;
    if (this.options.similarity === 'l2_norm') {
      for (let i = 0; i < d; i++) {
        const x = query[i]! - vs[base + i]!;
        sum += x * x;
      }
      return -sum;
    }
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let i = 0;
    for (; i + 3 < d; i += 4) {
      sum += query[i]! * vs[base + i]!;
      s1 += query[i + 1]! * vs[base + i + 1]!;
      s2 += query[i + 2]! * vs[base + i + 2]!;
      s3 += query[i + 3]! * vs[base + i + 3]!;
    }
    for (; i < d; i++) sum += query[i]! * vs[base + i]!;
    return sum + s1 + s2 + s3;
  }

  /** sim between two nodes (the insert path makes millions of these). */
  private simBetween(a: number, b: number): number {
    return this.simAt(this.addr(a), b);
  }

  private grow(): void {
    const capacity = this.docKeys.length * 2;
    const grown = <
      T extends Float32Array | Float64Array | Int8Array | Uint8Array | Int32Array | Uint16Array | Uint32Array,
    >(
      old: T,
      length: number,
    ): T => {
      const next = new (old.constructor as new (n: number) => T)(length);
      next.set(old);
      return next;
    };
    const needed = (capacity + 1) * this.stride * 4 - this.kernel.memory.buffer.byteLength;
    if (needed > 0) this.kernel.memory.grow(Math.ceil(needed / PAGE));
    this.vectors = new Float32Array(this.kernel.memory.buffer);
    this.docKeys = grown(this.docKeys, capacity);
    this.levels = grown(this.levels, capacity);
    this.deletedBits = grown(this.deletedBits, capacity);
    this.counts0 = grown(this.counts0, capacity);
    this.visited = grown(this.visited, capacity);
    if (this.codeKernel) {
      const more = (capacity + 1) * this.codeStride - this.codeKernel.memory.buffer.byteLength;
      if (more > 0) this.codeKernel.memory.grow(Math.ceil(more / PAGE));
      this.codeScales = grown(this.codeScales, capacity);
      this.codeNorms = grown(this.codeNorms, capacity);
    }
    if (this.options.linked) {
      this.links0 = grown(this.links0, capacity * this.m0);
      this.sims0 = grown(this.sims0, capacity * this.m0);
    }
  }

  /** Adds a node without linking it (loading persisted nodes, or a flat field). */
  append(docKey: number, vector: Float32Array, level: number, deleted = false): number {
    if (this.size === this.docKeys.length) this.grow();
    const ordinal = this.size++;
    this.vectors.set(vector.subarray(0, this.options.dims), (ordinal + 1) * this.stride);
    this.docKeys[ordinal] = docKey;
    this.levels[ordinal] = level;
    if (this.codeKernel) {
      this.codeScales[ordinal] = this.quantize(vector, (ordinal + 1) * this.codeStride);
      let norm = 0;
      for (let i = 0; i < this.options.dims; i++) norm += vector[i]! * vector[i]!;
      this.codeNorms[ordinal] = norm;
    }
    this.ordinals.set(docKey, ordinal);
    if (deleted) {
      this.deletedBits[ordinal] = 1;
      this.tombstones += 1;
    }
    if (level > 0) {
      const layers: Int32Array[] = [];
      const sims: Float32Array[] = [];
      for (let l = 1; l <= level; l++) {
        layers.push(new Int32Array(0));
        sims.push(new Float32Array(0));
      }
      this.upper.set(ordinal, layers);
      this.upperSims.set(ordinal, sims);
    }
    return ordinal;
  }

  levelOf(ordinal: number): number {
    return this.levels[ordinal]!;
  }

  neighbours(ordinal: number, layer: number): Int32Array {
    if (layer === 0) {
      const start = ordinal * this.m0;
      return this.links0.subarray(start, start + this.counts0[ordinal]!);
    }
    return this.upper.get(ordinal)?.[layer - 1] ?? new Int32Array(0);
  }

  /** Replaces a node's list on a layer; `sims` are the links' similarities when the caller knows them. */
  setNeighbours(ordinal: number, layer: number, list: ArrayLike<number>, sims?: ArrayLike<number>): void {
    if (layer === 0) {
      const count = Math.min(list.length, this.m0);
      const at = ordinal * this.m0;
      for (let i = 0; i < count; i++) {
        this.links0[at + i] = list[i]!;
        this.sims0[at + i] = sims ? sims[i]! : NaN;
      }
      this.counts0[ordinal] = count;
    } else {
      const layers = this.upper.get(ordinal);
      if (layers) {
        const count = Math.min(list.length, this.options.m);
        layers[layer - 1] = Int32Array.from(list).subarray(0, count);
        const known = new Float32Array(count);
        for (let i = 0; i < count; i++) known[i] = sims ? sims[i]! : NaN;
        this.upperSims.get(ordinal)![layer - 1] = known;
      }
    }
    this.dirty.add(ordinal);
  }

  /** The similarity of a node's i-th link on a layer (cached, computed if unknown). */
  private linkSim(ordinal: number, layer: number, i: number): number {
    if (layer === 0) {
      const at = ordinal * this.m0 + i;
      const known = this.sims0[at]!;
      if (known === known) return known;
      const s = this.simBetween(ordinal, this.links0[at]!);
      this.sims0[at] = s;
      return s;
    }
    const sims = this.upperSims.get(ordinal)![layer - 1]!;
    const known = sims[i]!;
    if (known === known) return known;
    const s = this.simBetween(ordinal, this.upper.get(ordinal)![layer - 1]![i]!);
    sims[i] = s;
    return s;
  }

  markDeleted(docKey: number): boolean {
    const ordinal = this.ordinals.get(docKey);
    if (ordinal === undefined || this.deletedBits[ordinal] === 1) return false;
    this.deletedBits[ordinal] = 1;
    this.tombstones += 1;
    return true;
  }

  /** Ordinals whose neighbour lists changed since the last call. */
  takeDirty(): number[] {
    const out = [...this.dirty];
    this.dirty = new Set();
    return out;
  }

  private nextTag(): number {
    this.visitTag += 1;
    if (this.visitTag === 0xffffffff) {
      this.visited.fill(0);
      this.visitTag = 1;
    }
    return this.visitTag;
  }

  /** Algorithm 2: the `ef` nodes nearest `query` on one layer, from the entry points. */
  private searchLayer(
    q: number,
    entries: number[],
    ef: number,
    layer: number,
    accept?: (ordinal: number) => boolean,
  ): NodeHeap {
    const tag = this.nextTag();
    const candidates = this.candidateHeap;
    const results = this.resultHeap;
    candidates.clear();
    results.clear();
    for (const e of entries) {
      this.visited[e] = tag;
      const s = this.simAt(q, e);
      candidates.push(e, s);
      if (!accept || accept(e)) results.push(e, s);
    }
    while (candidates.size > 0) {
      const bestSim = candidates.topSim();
      if (results.size >= ef && bestSim < results.topSim()) break;
      const current = candidates.pop();
      // Layer 0 read in place (no subarray per visited node: the GC was 5% of the insert time).
      const list = layer === 0 ? this.links0 : this.neighbours(current, layer);
      const from = layer === 0 ? current * this.m0 : 0;
      const to = layer === 0 ? from + this.counts0[current]! : list.length;
      for (let i = from; i < to; i++) {
        const n = list[i]!;
        if (this.visited[n] === tag) continue;
        this.visited[n] = tag;
        const s = this.simAt(q, n);
        if (results.size < ef || s > results.topSim()) {
          candidates.push(n, s);
          if (!accept || accept(n)) {
            results.push(n, s);
            if (results.size > ef) results.pop();
          }
        }
      }
    }
    return results;
  }

  /** Algorithm 4: keep a candidate only if it is nearer the base than every neighbour already kept. */
  private selectNeighbours(ids: number[], sims: number[], max: number): { ids: number[]; sims: number[] } {
    const kept: number[] = [];
    const keptSims: number[] = [];
    const limit = Math.min(ids.length, max * 4);
    for (let i = 0; i < limit && kept.length < max; i++) {
      const candidate = ids[i]!;
      let diverse = true;
      for (const k of kept) {
        if (this.simBetween(candidate, k) > sims[i]!) {
          diverse = false;
          break;
        }
      }
      if (diverse) {
        kept.push(candidate);
        keptSims.push(sims[i]!);
      }
    }
    // Fill up with the nearest pruned ones (hnswlib's keepPrunedConnections): fewer orphans.
    for (let i = 0; i < ids.length && kept.length < max; i++) {
      if (!kept.includes(ids[i]!)) {
        kept.push(ids[i]!);
        keptSims.push(sims[i]!);
      }
    }
    return { ids: kept, sims: keptSims };
  }

  /** Algorithm 1: inserts a vector (already `prepare`d) and links it on each of its layers. */
  insert(docKey: number, vector: Float32Array): void {
    const level = this.levelFor(docKey);
    const ordinal = this.append(docKey, vector, level);
    this.dirty.add(ordinal);
    if (!this.options.linked) return;
    if (this.entry < 0) {
      this.entry = ordinal;
      this.maxLevel = level;
      return;
    }
    let ep = this.entry;
    const q = this.addr(ordinal);
    if (this.codeKernel) this.codeQuery(vector);
    for (let l = this.maxLevel; l > level; l--) ep = this.walk(() => this.greedy(q, ep, l));
    for (let l = Math.min(level, this.maxLevel); l >= 0; l--) {
      const found = this.walk(() =>
        this.searchLayer(q, [ep], this.options.efConstruction, l).drainBestFirst(),
      );
      if (this.codeKernel) this.rescore(q, found);
      const max = l === 0 ? this.m0 : this.options.m;
      const chosen = this.selectNeighbours(found.ids, found.sims, this.options.m);
      this.setNeighbours(ordinal, l, chosen.ids, chosen.sims);
      // sim is symmetric: the new node's similarity to each chosen one is its link's back.
      for (let i = 0; i < chosen.ids.length; i++) this.link(chosen.ids[i]!, ordinal, l, max, chosen.sims[i]!);
      ep = found.ids[0] ?? ep;
    }
    if (level > this.maxLevel) {
      this.entry = ordinal;
      this.maxLevel = level;
    }
  }

  /** Adds `to` to `from`'s list on a layer, shrinking the list with the heuristic when it is full. */
  private link(from: number, to: number, layer: number, max: number, simToNew: number): void {
    const held = this.counts0[from]!;
    if (layer === 0 && held < max) {
      this.links0[from * this.m0 + held] = to;
      this.sims0[from * this.m0 + held] = simToNew;
      this.counts0[from] = held + 1;
      this.dirty.add(from);
      return;
    }
    const list = this.neighbours(from, layer);
    if (list.length < max) {
      const next = new Int32Array(list.length + 1);
      const nextSims = new Float32Array(list.length + 1);
      next.set(list);
      for (let i = 0; i < list.length; i++) nextSims[i] = this.linkSim(from, layer, i);
      next[list.length] = to;
      nextSims[list.length] = simToNew;
      this.setNeighbours(from, layer, next, nextSims);
      return;
    }
    // A full list drops one link: the farthest neighbour that a nearer one already covers (is nearer
    // to it than `from` is: algorithm 4's test), else the farthest. Lucene's findWorstNonDiverse: the
    // same pruning as re-running the heuristic over all max + 1 (hnswlib's getNeighborsByHeuristic2),
    // which always keeps max of them, but it stops at the first covered one instead of comparing
    // every pair: the shrinks were a third of the insert time.
    const count = list.length + 1;
    const all =
      this.shrinkIds.length >= count ? this.shrinkIds : (this.shrinkIds = new Int32Array(count * 2));
    const sims =
      this.shrinkSims.length >= count ? this.shrinkSims : (this.shrinkSims = new Float64Array(count * 2));
    for (let i = 0; i < list.length; i++) {
      all[i] = list[i]!;
      sims[i] = this.linkSim(from, layer, i);
    }
    all[list.length] = to;
    sims[list.length] = simToNew;
    // Insertion sort, most similar first (count is at most 2·M + 1).
    for (let i = 1; i < count; i++) {
      const id = all[i]!;
      const sim = sims[i]!;
      let j = i - 1;
      for (; j >= 0 && sims[j]! < sim; j--) {
        all[j + 1] = all[j]!;
        sims[j + 1] = sims[j]!;
      }
      all[j + 1] = id;
      sims[j + 1] = sim;
    }
    let drop = count - 1;
    search: for (let r = count - 1; r > 0; r--) {
      for (let j = 0; j < r; j++) {
        if (this.simBetween(all[r]!, all[j]!) > sims[r]!) {
          drop = r;
          break search;
        }
      }
    }
    all.copyWithin(drop, drop + 1, count);
    sims.copyWithin(drop, drop + 1, count);
    this.setNeighbours(from, layer, all.subarray(0, count - 1), sims.subarray(0, count - 1));
  }

  /** Runs a walk on codes when the graph keeps them (floats otherwise). */
  private walk<T>(run: () => T): T {
    if (!this.codeKernel) return run();
    this.coded = true;
    try {
      return run();
    } finally {
      this.coded = false;
    }
  }

  /** Replaces the walk's code similarities by the floats' and re-sorts, most similar first. */
  private rescore(q: number, found: { ids: number[]; sims: number[] }): void {
    const { ids, sims } = found;
    for (let i = 0; i < ids.length; i++) sims[i] = this.simAt(q, ids[i]!);
    // Insertion sort, most similar first: the list is short (ef) and nearly in order already.
    for (let i = 1; i < ids.length; i++) {
      const id = ids[i]!;
      const sim = sims[i]!;
      let j = i - 1;
      for (; j >= 0 && sims[j]! < sim; j--) {
        ids[j + 1] = ids[j]!;
        sims[j + 1] = sims[j]!;
      }
      ids[j + 1] = id;
      sims[j + 1] = sim;
    }
  }

  private greedy(q: number, start: number, layer: number): number {
    let current = start;
    let best = this.simAt(q, current);
    for (let changed = true; changed;) {
      changed = false;
      const list = this.neighbours(current, layer);
      for (let i = 0; i < list.length; i++) {
        const s = this.simAt(q, list[i]!);
        if (s > best) {
          best = s;
          current = list[i]!;
          changed = true;
        }
      }
    }
    return current;
  }

  /**
   * The `k` live nodes nearest `query` (prepared) among those `accept` takes, exploring `ef` ≥ k
   * candidates on layer 0 (ES's num_candidates). The filter applies during the search, as Lucene's
   * `acceptDocs`: rejected and deleted nodes are paths through the graph, never results.
   */
  search(query: Float32Array, k: number, ef: number, accept?: (docKey: number) => boolean): VectorHit[] {
    if (!this.options.linked || this.entry < 0) return this.exact(query, k, accept);
    const q = this.scratch(query);
    let ep = this.entry;
    const ok = (o: number): boolean => this.deletedBits[o] !== 1 && (!accept || accept(this.docKeys[o]!));
    if (this.options.quantization) {
      // int8_hnsw / int4_hnsw: the walk compares codes; its num_candidates are re-scored with the
      // float vectors, as ES re-scores a quantised kNN search's candidates (`rescore_vector`).
      this.codeQuery(query);
      const found = this.walk(() => {
        for (let l = this.maxLevel; l > 0; l--) ep = this.greedy(q, ep, l);
        return this.searchLayer(q, [ep], Math.max(ef, k), 0, ok).drainBestFirst();
      });
      this.rescore(q, found);
      return found.ids.slice(0, k).map((o, i) => ({ docKey: this.docKeys[o]!, sim: found.sims[i]! }));
    }
    for (let l = this.maxLevel; l > 0; l--) ep = this.greedy(q, ep, l);
    const found = this.searchLayer(q, [ep], Math.max(ef, k), 0, ok).drainBestFirst();
    return found.ids.slice(0, k).map((o, i) => ({ docKey: this.docKeys[o]!, sim: found.sims[i]! }));
  }

  /** Every live accepted node compared: the reference the graph is measured against. */
  exact(query: Float32Array, k: number, accept?: (docKey: number) => boolean): VectorHit[] {
    const q = this.scratch(query);
    const heap = new NodeHeap(false, k + 1);
    for (let o = 0; o < this.size; o++) {
      if (this.deletedBits[o] === 1) continue;
      if (accept && !accept(this.docKeys[o]!)) continue;
      const s = this.simAt(q, o);
      if (heap.size < k || s > heap.topSim()) {
        heap.push(o, s);
        if (heap.size > k) heap.pop();
      }
    }
    const found = heap.drainBestFirst();
    return found.ids.map((o, i) => ({ docKey: this.docKeys[o]!, sim: found.sims[i]! }));
  }

  /** The exact k nearest among some doc keys (a small filter's documents). */
  exactAmong(query: Float32Array, k: number, docKeys: Iterable<number>): VectorHit[] {
    const q = this.scratch(query);
    const heap = new NodeHeap(false, k + 1);
    for (const docKey of docKeys) {
      const o = this.ordinals.get(docKey);
      if (o === undefined || this.deletedBits[o] === 1) continue;
      const s = this.simAt(q, o);
      if (heap.size < k || s > heap.topSim()) {
        heap.push(o, s);
        if (heap.size > k) heap.pop();
      }
    }
    const found = heap.drainBestFirst();
    return found.ids.map((o, i) => ({ docKey: this.docKeys[o]!, sim: found.sims[i]! }));
  }

  /**
   * Repairs the graph around a deleted node (its tombstone stays a way through): every node of its
   * neighbour lists that links back to it gets, in place of the link, the nearest of the deleted
   * node's other live neighbours it does not hold yet, so deletes do not cut the graph into pieces;
   * an entry point that was deleted moves to a live node of the highest level.
   */
  repair(docKey: number): void {
    const dead = this.ordinals.get(docKey);
    if (dead === undefined || !this.options.linked) return;
    for (let l = 0; l <= this.levelOf(dead); l++) {
      const around = Array.from(this.neighbours(dead, l)).filter((o) => this.deletedBits[o] !== 1);
      for (const n of around) {
        const list = Array.from(this.neighbours(n, l));
        const at = list.indexOf(dead);
        if (at < 0) continue;
        let best = -1;
        let bestSim = -Infinity;
        for (const c of around) {
          if (c === n || list.includes(c)) continue;
          const s = this.simBetween(n, c);
          if (s > bestSim) {
            bestSim = s;
            best = c;
          }
        }
        if (best >= 0) list[at] = best;
        else list.splice(at, 1);
        this.setNeighbours(n, l, list);
      }
    }
    if (this.entry === dead) this.moveEntry();
  }

  /**
   * The graph without its tombstones (graph compaction, on force merge): every live node keeps its
   * live links, and a list that held tombstones gets its links chosen again with the heuristic from
   * its live links and the live links of the tombstones it held (the paths that went through them).
   * Returns the new graph, the doc keys removed and the doc keys whose lists changed.
   */
  compacted(): { graph: HnswGraph; removed: number[]; changed: number[] } {
    const next = new HnswGraph(this.options);
    const removed: number[] = [];
    const map = new Int32Array(this.size).fill(-1);
    for (let o = 0; o < this.size; o++) {
      if (this.deletedBits[o] === 1) removed.push(this.docKeys[o]!);
      else map[o] = next.append(this.docKeys[o]!, this.vectorOf(o), this.levels[o]!);
    }
    const changed: number[] = [];
    if (this.options.linked) {
      for (let o = 0; o < this.size; o++) {
        if (map[o] === -1) continue;
        let touched = false;
        for (let l = 0; l <= this.levels[o]!; l++) {
          const list = Array.from(this.neighbours(o, l));
          if (list.every((n) => this.deletedBits[n] !== 1)) {
            next.setNeighbours(
              map[o]!,
              l,
              list.map((n) => map[n]!),
              list.map((_, i) => this.linkSim(o, l, i)),
            );
            continue;
          }
          touched = true;
          const candidates = new Set<number>();
          for (const n of list) {
            if (this.deletedBits[n] !== 1) candidates.add(n);
            else
              for (const via of this.neighbours(n, l))
                if (via !== o && this.deletedBits[via] !== 1) candidates.add(via);
          }
          const ids = [...candidates].map((c) => ({ c, sim: this.simBetween(o, c) }));
          ids.sort((a, b) => b.sim - a.sim);
          const chosen = this.selectNeighbours(
            ids.map((x) => x.c),
            ids.map((x) => x.sim),
            l === 0 ? this.m0 : this.options.m,
          );
          next.setNeighbours(
            map[o]!,
            l,
            chosen.ids.map((n) => map[n]!),
            chosen.sims,
          );
        }
        if (touched) changed.push(this.docKeys[o]!);
      }
      if (this.entry >= 0 && this.deletedBits[this.entry] === 1) this.moveEntry();
      if (this.entry >= 0 && map[this.entry] !== -1) {
        next.entry = map[this.entry]!;
        next.maxLevel = this.maxLevel;
      }
    }
    next.takeDirty();
    return { graph: next, removed, changed };
  }

  private moveEntry(): void {
    let best = -1;
    let level = -1;
    for (let o = 0; o < this.size; o++) {
      if (this.deletedBits[o] === 1) continue;
      if (this.levels[o]! > level) {
        level = this.levels[o]!;
        best = o;
      }
    }
    if (best >= 0) {
      this.entry = best;
      this.maxLevel = level;
    }
  }
}
