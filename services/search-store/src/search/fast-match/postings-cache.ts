import type { FastMatchPlan } from './plan-fast-match';
import type { MatchPostings, TermPostings } from './score-match-plan';
import {
  blocksBytes,
  packedBytes,
  packPostings,
  unpackPostings,
  type PackedPostings,
} from './packed-postings';
import { UnpackBuffers } from './unpack-buffers';

/**
 * Postings of the fast path kept between requests, as Lucene keeps a segment's postings in the page
 * cache; bounded by bytes, least recently used out first.
 *
 * Two tiers in one budget. Lists are kept as read (decoded, 13 bytes a posting) while they fit; when
 * the budget is short, the least recently used are packed (packed-postings.ts, about 3 bytes a
 * posting) before any is dropped, and a packed list a search uses is unpacked for it and kept both
 * ways until the budget is short again (dropping the decoded copy then costs nothing). At 100k
 * documents every list the bench reads fits decoded, so a search unpacks nothing; at 1M its 356 query
 * words hold 18.5M postings, 240 MB decoded, and most of them fit packed in the default 64 MB, where
 * decoded they fit a fifth (issue 23).
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
  /** The list as read or unpacked: present in the decoded tier. */
  decoded?: TermPostings;
  /** The list packed: present in the packed tier, and in the decoded one once it has been packed. */
  packed?: PackedPostings;
  bytes: number;
}

/**
 * What the cache takes for a list of `docFreq` postings when it is short of room (packed): a common
 * term's packs to 3 bytes a posting, a rare one's (gaps of 2 or 3 bytes) to 4 or 5. Readers decide
 * with it whether to read a whole list so that it can be kept (read-conjunction.ts,
 * load-top-term-postings.ts).
 */
export const cachedListBytes = (docFreq: number): number => ENTRY_OVERHEAD + 4 * docFreq;

type FieldStats = { docCount: number; sumTotalTermFreq: number };

/** What a cached plan was scored with, checked against Postgres before its answer is kept. */
export interface CachedPlan {
  postings: MatchPostings;
  /** Keyed like MatchPostings.terms (`path\u0000term`); absent: the term did not exist. */
  versions: Map<string, TermVersion>;
}

const ENTRY_OVERHEAD = 160;

export class PostingsCache {
  /** The decoded tier, least recently used first (a Map iterates in insertion order). */
  private readonly decoded = new Map<string, TermEntry>();
  /** The packed tier (and terms known absent), least recently used first. */
  private readonly packed = new Map<string, TermEntry>();
  private readonly fields = new Map<string, FieldStats | null>();
  private bytes = 0;
  /**
   * Arrays of dropped unpacked copies, for the next unpacks (unpack-buffers.ts): up to a quarter of
   * the budget more, outside it.
   */
  private readonly buffers: UnpackBuffers;
  /** Unpacked copies whose arrays go back to `buffers` when dropped: none a search holds across an await. */
  private readonly reusable = new WeakSet<TermPostings>();

  constructor(readonly maxBytes: number) {
    this.buffers = new UnpackBuffers(maxBytes / 4);
  }

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get size(): { terms: number; bytes: number } {
    return { terms: this.decoded.size + this.packed.size, bytes: this.bytes };
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
    for (const { path, term } of plan.terms)
      if (!this.entry(`${index}\u0000${termKey(path, term)}`)) return undefined;
    // Every term is held: each is used (unpacked if packed, and now the most recently used).
    const terms: MatchPostings['terms'] = new Map();
    const versions = new Map<string, TermVersion>();
    for (const { path, term } of plan.terms) {
      const key = termKey(path, term);
      const { version, postings } = this.use(`${index}\u0000${key}`)!;
      if (version && !terms.has(key)) {
        versions.set(key, version);
        terms.set(key, postings!);
      }
    }
    this.shrink();
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
      if (out.has(key) || !this.entry(at)?.version) continue;
      const { version, postings } = this.use(at)!;
      // The search reads these after its postings statement: their arrays are never handed out again.
      this.reusable.delete(postings!);
      out.set(key, { version: version!, postings: postings! });
    }
    this.shrink();
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
        this.put(`${index}\u0000${key}`, { version, postings });
      } else if (!postings && !version) {
        this.put(`${index}\u0000${key}`);
      }
    }
    this.shrink();
    // Field statistics are a few numbers per field; bound their count all the same.
    while (this.fields.size > 10_000) this.fields.delete(this.fields.keys().next().value!);
  }

  private entry(at: string): TermEntry | undefined {
    return this.decoded.get(at) ?? this.packed.get(at);
  }

  /** The term's version and decoded postings, made the most recently used; the caller shrinks after. */
  private use(at: string): { version?: TermVersion; postings?: TermPostings } | undefined {
    const entry = this.entry(at);
    if (!entry) return undefined;
    this.decoded.delete(at);
    this.packed.delete(at);
    if (entry.packed && !entry.decoded) {
      entry.decoded = unpackPostings(entry.packed, this.buffers.take(entry.packed.length));
      this.reusable.add(entry.decoded);
      // The unpacked copy shares the packed list's norms and blocks: only its docs and freqs are new
      // (whole arrays: a reused pair may be up to twice the list).
      const { docs, freqs } = entry.decoded;
      this.resize(
        entry,
        ENTRY_OVERHEAD + packedBytes(entry.packed) + docs.buffer.byteLength + freqs.buffer.byteLength,
      );
    }
    (entry.decoded ? this.decoded : this.packed).set(at, entry);
    return { version: entry.version, postings: entry.decoded };
  }

  /**
   * Keeps a term's list decoded (or the term as absent), replacing what was held. A list that would
   * take more than a quarter of the budget even packed is not kept: it would evict most others.
   */
  private put(at: string, read?: { version: TermVersion; postings: TermPostings }): void {
    const old = this.entry(at);
    if (old) {
      this.bytes -= old.bytes;
      this.decoded.delete(at);
      this.packed.delete(at);
    }
    if (!read) {
      this.packed.set(at, { bytes: ENTRY_OVERHEAD });
      this.bytes += ENTRY_OVERHEAD;
      return;
    }
    const entry: TermEntry = {
      version: read.version,
      decoded: read.postings,
      bytes: ENTRY_OVERHEAD + decodedBytes(read.postings),
    };
    if (entry.bytes > this.maxBytes / 4) {
      if (!this.pack(entry) || entry.bytes > this.maxBytes / 4) return;
    }
    (entry.decoded ? this.decoded : this.packed).set(at, entry);
    this.bytes += entry.bytes;
  }

  /**
   * Back within budget: the least recently used decoded lists are packed first (or, when the cache
   * already holds them packed, only their decoded copy dropped), then the least recently used packed
   * ones dropped. A list that does not pack (packPostings) is dropped instead.
   */
  private shrink(): void {
    while (this.bytes > this.maxBytes && this.decoded.size > 0) {
      const [at, entry] = this.decoded.entries().next().value!;
      this.decoded.delete(at);
      const before = entry.bytes;
      const copy = entry.packed ? entry.decoded : undefined;
      if (copy && this.reusable.delete(copy)) this.buffers.retire(copy.docs, copy.freqs);
      if (!this.pack(entry)) {
        this.bytes -= before;
        continue;
      }
      this.bytes += entry.bytes - before;
      this.packed.set(at, entry);
    }
    while (this.bytes > this.maxBytes && this.packed.size > 0) {
      const [at, entry] = this.packed.entries().next().value!;
      this.packed.delete(at);
      this.bytes -= entry.bytes;
    }
  }

  /** Leaves the entry packed only (entry.bytes updated, the cache's total not); false when it does not pack. */
  private pack(entry: TermEntry): boolean {
    entry.packed ??= packPostings(entry.decoded!);
    if (!entry.packed) return false;
    entry.decoded = undefined;
    entry.bytes = ENTRY_OVERHEAD + packedBytes(entry.packed);
    return true;
  }

  private resize(entry: TermEntry, bytes: number): void {
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }
}

function decodedBytes(p: TermPostings): number {
  return p.docs.byteLength + p.freqs.byteLength + p.norms.byteLength + blocksBytes(p.blocks);
}

export const termKey = (path: string, term: string): string => `${path}\u0000${term}`;
const fieldKey = (indexId: string, path: string): string => `${indexId}\u0000${path}`;
