import type { MatchPostings } from './score-match-plan';
import { contentBytes, directoryBytes, type BlockContents, type TermBlocks } from './term-blocks';

/**
 * Posting blocks of the fast path kept between requests, as Lucene keeps a segment's postings in the
 * page cache: per term its block directory (term-blocks.ts) and the contents of the blocks read so far,
 * bounded by bytes, least recently used term out first. A search reads only the blocks it needs
 * (choose-blocks.ts), so a frequent term costs its directory plus its competitive blocks, not its list.
 *
 * Nothing is answered from here on trust: every entry carries the version of its term (the xmin and
 * key of the term's last block, as the term dictionary reports it: migration 0010), which changes
 * whenever the term's postings do (every append, removal or merge writes that block's totals in the
 * same transaction: index/posting-blocks.repo.ts), and the field statistics it was scored with. A
 * search is kept only when a statement of its own finds every version and statistic it used unchanged
 * (read-term-blocks.ts, check-cached-plan.ts), so another instance's writes are seen as soon as they
 * commit. Several instances each keep their own. Without a configured cache, each search uses a fresh
 * unbounded one that lives as long as the search.
 */
export interface TermVersion {
  termId: string;
  /**
   * The dictionary's `version`, the last block's `xmin/base_doc_key`: a new value for every committed
   * change of the term's postings. The raw xmin, which freezing leaves in place (PostgreSQL ≥ 9.4
   * reads the system column with HeapTupleHeaderGetRawXmin).
   */
  version: string;
}

export type FieldStats = { docCount: number; sumTotalTermFreq: number };

/** What a plan was scored with, checked against Postgres before its answer is kept (check-cached-plan.ts). */
export interface CachedPlan {
  postings: MatchPostings;
  /** Keyed like MatchPostings.terms (`path\u0000term`); absent: the term did not exist. */
  versions: Map<string, TermVersion>;
}

interface Slot {
  /** null: the index had no such term when last read (a search for it matches nothing). */
  entry: TermBlocks | null;
  bytes: number;
}

export class PostingsCache {
  private readonly terms = new Map<string, Slot>();
  private readonly fields = new Map<string, FieldStats | null>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get size(): { terms: number; bytes: number } {
    return { terms: this.terms.size, bytes: this.bytes };
  }

  /** The term's entry (moved to the back of the eviction order), null when absent, undefined when unknown. */
  term(indexId: string, path: string, term: string): TermBlocks | null | undefined {
    const at = slotKey(indexId, path, term);
    const slot = this.terms.get(at);
    if (!slot) return undefined;
    this.terms.delete(at);
    this.terms.set(at, slot);
    return slot.entry;
  }

  field(indexId: string, path: string): FieldStats | null | undefined {
    return this.fields.get(fieldKey(indexId, path));
  }

  setField(indexId: string, path: string, stats: FieldStats | null): void {
    if (this.maxBytes <= 0) return;
    this.fields.set(fieldKey(indexId, path), stats);
    // Field statistics are a few numbers per field; bound their count all the same.
    while (this.fields.size > 10_000) this.fields.delete(this.fields.keys().next().value!);
  }

  /** Keeps a term's directory (its contents read so far counted too), or that the index lacks it. */
  setTerm(indexId: string, path: string, term: string, entry: TermBlocks | null): void {
    if (this.maxBytes <= 0) return;
    const at = slotKey(indexId, path, term);
    const old = this.terms.get(at);
    if (old) {
      this.bytes -= old.bytes;
      this.terms.delete(at);
    }
    let bytes = directoryBytes(entry ? entry.base.length : 0);
    if (entry) for (const c of entry.contents) if (c) bytes += contentBytes(c);
    // A term over a quarter of the budget is not kept: it would push out most others.
    if (bytes > this.maxBytes / 4) return;
    this.terms.set(at, { entry, bytes });
    this.bytes += bytes;
    this.evict(at);
  }

  /** Drops a term whose version changed. */
  forget(indexId: string, path: string, term: string): void {
    const at = slotKey(indexId, path, term);
    const slot = this.terms.get(at);
    if (!slot) return;
    this.bytes -= slot.bytes;
    this.terms.delete(at);
  }

  /** Adds a block's contents to an entry (also when the cache no longer holds it: the search does). */
  addBlock(
    indexId: string,
    path: string,
    term: string,
    entry: TermBlocks,
    i: number,
    c: BlockContents,
  ): void {
    if (entry.contents[i]) return;
    entry.contents[i] = c;
    entry.loaded++;
    const at = slotKey(indexId, path, term);
    const slot = this.terms.get(at);
    if (this.maxBytes <= 0 || !slot || slot.entry !== entry) return;
    const bytes = contentBytes(c);
    slot.bytes += bytes;
    this.bytes += bytes;
    if (slot.bytes > this.maxBytes / 4) this.forget(indexId, path, term);
    else this.evict(at);
  }

  /** Least recently used out until the bytes fit; `keep` last (a term bigger than the cache goes too). */
  private evict(keep: string): void {
    while (this.bytes > this.maxBytes && this.terms.size > 0) {
      let [oldest, slot] = this.terms.entries().next().value!;
      if (oldest === keep && this.terms.size > 1) {
        // Move it back and take the next one.
        this.terms.delete(oldest);
        this.terms.set(oldest, slot);
        [oldest, slot] = this.terms.entries().next().value!;
      }
      this.terms.delete(oldest);
      this.bytes -= slot.bytes;
    }
  }
}

export const termKey = (path: string, term: string): string => `${path}\u0000${term}`;
const slotKey = (indexId: string, path: string, term: string): string =>
  `${indexId}\u0000${path}\u0000${term}`;
const fieldKey = (indexId: string, path: string): string => `${indexId}\u0000${path}`;
