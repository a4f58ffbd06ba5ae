import type { Tail } from './posting-blocks.repo';

/** What a cached term costs beyond its text: Map entry and slot arrays (an estimate; V8 does not say). */
const ENTRY_BYTES = 96;

/**
 * What one instance knows of an index's term dictionary: each term's id and last block (with the
 * term's totals, migration 0010), as of the
 * transaction that gave the index the dictionary token held here (`indices.dictionary_token`,
 * migration 0008). With it a batch asks Postgres only for the terms it has not seen: the dictionary
 * statement shrinks to the new terms, and Node plans the blocks at once.
 *
 * Only the writer that holds the index's row lock reads or changes it (index-writer.ts `add`); a
 * transaction that changes the dictionary any other way (remove, copy, another instance's write)
 * gives the index a new token, and the cache is dropped the next time its token does not match.
 * The background merge (segment-merge.ts) gives no new token: it keeps every term's last doc key and
 * totals, which is what a batch takes from a cached tail; a cached `smallRun` may then overstate the
 * run, which only brings that term's next merge forward.
 */
export class TermDictionaryCache {
  /** The token of the transaction this state belongs to; null: nothing to trust. */
  token: string | null = null;
  private readonly slots = new Map<number, Map<string, number>>();
  private termIds = new Float64Array(0);
  private bases = new Float64Array(0);
  private lasts = new Float64Array(0);
  private sizes = new Int32Array(0);
  private smallRuns = new Int32Array(0);
  private docFreqs = new Int32Array(0);
  private totalTermFreqs = new Float64Array(0);
  private count = 0;
  /** Estimated bytes held. */
  bytes = 0;
  /** Bytes it may grow to: past them `add` keeps no more terms (index-writer.ts sets it per batch). */
  limit = Infinity;

  get size(): number {
    return this.count;
  }

  /** The term's slot, or -1. */
  find(fieldId: number, term: string): number {
    return this.slots.get(fieldId)?.get(term) ?? -1;
  }

  termId(slot: number): number {
    return this.termIds[slot]!;
  }

  tail(slot: number): Tail {
    return {
      baseDocKey: this.bases[slot]!,
      lastDocKey: this.lasts[slot]!,
      size: this.sizes[slot]!,
      smallRun: this.smallRuns[slot]!,
      docFreq: this.docFreqs[slot]!,
      totalTermFreq: this.totalTermFreqs[slot]!,
    };
  }

  /**
   * Adds a term (not cached yet) and returns its slot, or -1 once the cache is at its limit: the terms
   * it holds stay, the others keep going through the dictionary statement. (Dropping the whole cache
   * instead would leave an index bigger than the budget cold at every batch.)
   */
  add(fieldId: number, term: string, termId: number, tail: Tail): number {
    if (this.bytes >= this.limit) return -1;
    let terms = this.slots.get(fieldId);
    if (!terms) this.slots.set(fieldId, (terms = new Map()));
    const slot = this.count++;
    if (slot === this.termIds.length) this.grow();
    terms.set(term, slot);
    this.termIds[slot] = termId;
    this.setTail(slot, tail);
    this.bytes += ENTRY_BYTES + 2 * term.length;
    return slot;
  }

  setTail(slot: number, tail: Tail): void {
    this.bases[slot] = tail.baseDocKey;
    this.lasts[slot] = tail.lastDocKey;
    this.sizes[slot] = tail.size;
    this.smallRuns[slot] = tail.smallRun;
    this.docFreqs[slot] = tail.docFreq;
    this.totalTermFreqs[slot] = tail.totalTermFreq;
  }

  /** Forgets everything, the token included. */
  clear(): void {
    this.token = null;
    this.slots.clear();
    this.termIds = new Float64Array(0);
    this.bases = new Float64Array(0);
    this.lasts = new Float64Array(0);
    this.sizes = new Int32Array(0);
    this.smallRuns = new Int32Array(0);
    this.docFreqs = new Int32Array(0);
    this.totalTermFreqs = new Float64Array(0);
    this.count = 0;
    this.bytes = 0;
  }

  private grow(): void {
    const capacity = Math.max(1024, this.termIds.length * 2);
    const widen = <A extends Float64Array | Int32Array>(old: A, next: A): A => {
      next.set(old);
      return next;
    };
    this.termIds = widen(this.termIds, new Float64Array(capacity));
    this.bases = widen(this.bases, new Float64Array(capacity));
    this.lasts = widen(this.lasts, new Float64Array(capacity));
    this.sizes = widen(this.sizes, new Int32Array(capacity));
    this.smallRuns = widen(this.smallRuns, new Int32Array(capacity));
    this.docFreqs = widen(this.docFreqs, new Int32Array(capacity));
    this.totalTermFreqs = widen(this.totalTermFreqs, new Float64Array(capacity));
  }
}

/** One instance's caches, one per index, within a memory budget. */
export class TermDictionaryCaches {
  private readonly byIndex = new Map<string, TermDictionaryCache>();

  constructor(private readonly maxBytes: number) {}

  /** The index's cache, allowed what the others leave of the budget; undefined when caching is off. */
  for(indexId: string): TermDictionaryCache | undefined {
    if (this.maxBytes <= 0) return undefined;
    let cache = this.byIndex.get(indexId);
    if (!cache) this.byIndex.set(indexId, (cache = new TermDictionaryCache()));
    let others = 0;
    for (const [id, other] of this.byIndex) if (id !== indexId) others += other.bytes;
    cache.limit = this.maxBytes - others;
    return cache;
  }

  drop(indexId: string): void {
    this.byIndex.get(indexId)?.clear();
    this.byIndex.delete(indexId);
  }
}
