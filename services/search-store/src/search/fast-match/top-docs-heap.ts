/**
 * The best `capacity` documents by Elasticsearch's order for relevance: score descending, then the
 * index (searched indices in index_id order, as the SQL path's `ORDER BY s DESC, index_id, doc_key`),
 * then doc_key ascending (Lucene's tie-break on doc id). A binary heap whose root is the worst kept
 * document, so a candidate is one comparison away from rejection.
 */
export class TopDocsHeap {
  private readonly scores: Float64Array;
  private readonly shards: Int32Array;
  private readonly docs: Float64Array;
  private size = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.shards = new Int32Array(capacity);
    this.docs = new Float64Array(capacity);
  }

  get length(): number {
    return this.size;
  }

  /**
   * The score a document must beat to be kept (block-max-top-k.ts): the worst kept score once the heap
   * is full, +Infinity when it keeps nothing, -Infinity while it has room.
   */
  get threshold(): number {
    if (this.capacity === 0) return Infinity;
    return this.size < this.capacity ? -Infinity : this.scores[0]!;
  }

  /** True when (a) ranks below (b): lower score, or equal score and later (shard, doc). */
  private worse(sa: number, ha: number, da: number, sb: number, hb: number, db: number): boolean {
    if (sa !== sb) return sa < sb;
    if (ha !== hb) return ha > hb;
    return da > db;
  }

  private worseAt(i: number, j: number): boolean {
    return this.worse(
      this.scores[i]!,
      this.shards[i]!,
      this.docs[i]!,
      this.scores[j]!,
      this.shards[j]!,
      this.docs[j]!,
    );
  }

  private swap(i: number, j: number): void {
    const s = this.scores[i]!;
    const h = this.shards[i]!;
    const d = this.docs[i]!;
    this.scores[i] = this.scores[j]!;
    this.shards[i] = this.shards[j]!;
    this.docs[i] = this.docs[j]!;
    this.scores[j] = s;
    this.shards[j] = h;
    this.docs[j] = d;
  }

  /** Offers a document; keeps it when the heap has room or it beats the worst one kept. */
  offer(score: number, shard: number, doc: number): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      let i = this.size++;
      this.scores[i] = score;
      this.shards[i] = shard;
      this.docs[i] = doc;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worseAt(i, parent)) break;
        this.swap(i, parent);
        i = parent;
      }
      return;
    }
    if (!this.worse(this.scores[0]!, this.shards[0]!, this.docs[0]!, score, shard, doc)) return;
    this.scores[0] = score;
    this.shards[0] = shard;
    this.docs[0] = doc;
    this.siftDown(0);
  }

  private siftDown(start: number): void {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < this.size && this.worseAt(l, worst)) worst = l;
      if (r < this.size && this.worseAt(r, worst)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  /** The kept documents, best first. */
  sorted(): { score: number; shard: number; doc: number }[] {
    const out: { score: number; shard: number; doc: number }[] = [];
    for (let i = 0; i < this.size; i++)
      out.push({ score: this.scores[i]!, shard: this.shards[i]!, doc: this.docs[i]! });
    return out.sort((a, b) =>
      a.score !== b.score ? b.score - a.score : a.shard !== b.shard ? a.shard - b.shard : a.doc - b.doc,
    );
  }
}
