import type { FastMatchPlan } from './plan-fast-match';
import type { MatchPostings, TermPostings } from './score-match-plan';
import { packedBytes, packPostings, unpackPostings, type PackedPostings } from './packed-postings';

/**
 * Postings of the fast path kept between requests, as Lucene keeps a segment's postings in the page
 * cache; bounded by bytes, least recently used out first. Lists are kept packed (packed-postings.ts:
 * about 3 bytes a posting instead of 13) and unpacked for each search that uses them.
 *
 * Nothing is answered from here on trust: every entry carries the version of its term (the xmin and
 * key of the term's last block, as the term dictionary reports it: migration 0010), which changes
 * whenever the term's postings do (every append, removal or merge writes that block's totals in the
 * same transaction: index/posting-blocks.repo.ts), and the field statistics it was scored with. A
 * search scored from the cache is kept only when one statement reading the current versions and
 * statistics finds them all unchanged (execute-fast-search.ts), so another instance's writes are
 * seen as soon as they commit. Several instances each keep their own.
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

/** A term's postings held by the cache and the version they were read at (load-match-postings.ts). */
export interface KnownPostings {
  version: TermVersion;
  postings: TermPostings;
}

interface TermEntry {
  /** undefined: the index had no such term when last read (a search for it matches nothing). */
  version?: TermVersion;
  /** The list packed, or as read when it does not pack (packed-postings.ts). */
  postings?: PackedPostings | TermPostings;
  bytes: number;
}

/**
 * What the cache takes for a list of `docFreq` postings, about: a common term's packs to 3 bytes a
 * posting, a rare one's (gaps of 2 or 3 bytes) to 4 or 5. Readers decide with it whether to read a
 * whole list so that it can be kept (read-conjunction.ts, load-top-term-postings.ts).
 */
export const cachedListBytes = (docFreq: number): number => ENTRY_OVERHEAD + 4 * docFreq;

const unpacked = (held: PackedPostings | TermPostings): TermPostings =>
  'data' in held ? unpackPostings(held) : held;

type FieldStats = { docCount: number; sumTotalTermFreq: number };

/** What a cached plan was scored with, checked against Postgres before its answer is kept. */
export interface CachedPlan {
  postings: MatchPostings;
  /** Keyed like MatchPostings.terms (`path\u0000term`); absent: the term did not exist. */
  versions: Map<string, TermVersion>;
}

const ENTRY_OVERHEAD = 160;

export class PostingsCache {
  private readonly terms = new Map<string, TermEntry>();
  private readonly fields = new Map<string, FieldStats | null>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get size(): { terms: number; bytes: number } {
    return { terms: this.terms.size, bytes: this.bytes };
  }

  /** Everything the plan scores with, when the cache holds all of it; undefined otherwise. */
  lookup(plan: FastMatchPlan): CachedPlan | undefined {
    if (this.maxBytes <= 0) return undefined;
    const index = plan.reader.indexId;
    const fields: MatchPostings['fields'] = new Map();
    for (const path of plan.fields) {
      const stats = this.fields.get(fieldKey(index, path));
      if (stats === undefined) return undefined;
      if (stats) fields.set(path, stats);
    }
    const terms: MatchPostings['terms'] = new Map();
    const versions = new Map<string, TermVersion>();
    for (const { path, term } of plan.terms) {
      const key = termKey(path, term);
      const entry = this.terms.get(`${index}\u0000${key}`);
      if (!entry) return undefined;
    }
    // Every term is held: unpack the lists (a term twice in the plan is unpacked once).
    for (const { path, term } of plan.terms) {
      const key = termKey(path, term);
      const entry = this.terms.get(`${index}\u0000${key}`)!;
      if (entry.version && !terms.has(key)) {
        versions.set(key, entry.version);
        terms.set(key, unpacked(entry.postings!));
      }
    }
    // Recently used: move to the back of the eviction order.
    for (const { path, term } of plan.terms) {
      const at = `${index}\u0000${termKey(path, term)}`;
      const entry = this.terms.get(at)!;
      this.terms.delete(at);
      this.terms.set(at, entry);
    }
    return { postings: { fields, terms }, versions };
  }

  /**
   * The postings of the plan's terms the cache holds, whatever else is missing (field statistics,
   * other terms), with the versions they were read at: the postings statement leaves those terms'
   * blocks out while they keep that version (load-match-postings.ts), so a search with one term not
   * cached reads that term only. Marks them recently used.
   */
  known(plan: FastMatchPlan): Map<string, KnownPostings> {
    const out = new Map<string, KnownPostings>();
    if (this.maxBytes <= 0) return out;
    const index = plan.reader.indexId;
    for (const { path, term } of plan.terms) {
      const key = termKey(path, term);
      const at = `${index}\u0000${key}`;
      const entry = this.terms.get(at);
      if (!entry?.version || out.has(key)) continue;
      out.set(key, { version: entry.version, postings: unpacked(entry.postings!) });
      this.terms.delete(at);
      this.terms.set(at, entry);
    }
    return out;
  }

  /**
   * Keeps what one statement read for a plan: the field statistics, and the terms whose postings came
   * back whole (a conjunction sends only the blocks near the rarest term's documents: those are not
   * kept). Terms the index does not have are kept as such.
   */
  remember(plan: FastMatchPlan, read: MatchPostings & { versions: Map<string, TermVersion> }): void {
    if (this.maxBytes <= 0) return;
    const { versions } = read;
    const index = plan.reader.indexId;
    for (const path of plan.fields) this.fields.set(fieldKey(index, path), read.fields.get(path) ?? null);
    for (const { path, term } of plan.terms) {
      const key = termKey(path, term);
      const postings = read.terms.get(key);
      const version = versions.get(key);
      if (postings && version) {
        if (postings.docs.length !== postings.docFreq) continue;
        // A list longer than a quarter of the cache is not kept: it would evict most of the others.
        // Packed, a posting takes at least its norm and freq bytes, so longer lists are not packed.
        if (ENTRY_OVERHEAD + 2 * postings.docFreq > this.maxBytes / 4) continue;
        const packed = packPostings(postings);
        const bytes = ENTRY_OVERHEAD + (packed ? packedBytes(packed) : decodedBytes(postings));
        if (bytes > this.maxBytes / 4) continue;
        this.put(`${index}\u0000${key}`, { version, postings: packed ?? postings, bytes });
      } else if (!postings && !version) {
        this.put(`${index}\u0000${key}`, { bytes: ENTRY_OVERHEAD });
      }
    }
    // Field statistics are a few numbers per field; bound their count all the same.
    while (this.fields.size > 10_000) this.fields.delete(this.fields.keys().next().value!);
  }

  private put(at: string, entry: TermEntry): void {
    const old = this.terms.get(at);
    if (old) {
      this.bytes -= old.bytes;
      this.terms.delete(at);
    }
    this.terms.set(at, entry);
    this.bytes += entry.bytes;
    while (this.bytes > this.maxBytes) {
      const [oldest, evicted] = this.terms.entries().next().value!;
      this.terms.delete(oldest);
      this.bytes -= evicted.bytes;
    }
  }
}

function decodedBytes(p: TermPostings): number {
  const b = p.blocks;
  return (
    p.docs.byteLength +
    p.freqs.byteLength +
    p.norms.byteLength +
    (b ? b.ends.byteLength + b.maxFreq.byteLength + b.minNorm.byteLength : 0)
  );
}

export const termKey = (path: string, term: string): string => `${path}\u0000${term}`;
const fieldKey = (indexId: string, path: string): string => `${indexId}\u0000${path}`;
