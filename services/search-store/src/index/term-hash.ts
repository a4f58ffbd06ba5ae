import { IntList } from './int-list';

/**
 * A batch's term dictionary: (field, term text) → dense term number, in one open-addressing table over
 * UTF-16 code units, after Lucene's BytesRefHash (TermsHashPerField interns a token's bytes without
 * making a String of it). The analyser's hottest loop: a 5,000-document batch of ~1.3 kB documents
 * looks up ~10⁶ tokens for ~38k terms, and a JS `Map` keyed by each token's fresh string took ~130 ms
 * of a batch's ~270 ms of analysis (hashing every new string, then comparing it).
 *
 * `internSlice` interns a slice of a longer text where it is, so the standard analyser's tokens
 * never become strings at all unless the term is new (batch-analyzer.ts); `intern` is the slice
 * that is the whole string.
 */
export class TermHash {
  /** Term number + 1 per slot; 0 is empty. At most half full. */
  private slots = new Int32Array(1 << 12);
  private mask = this.slots.length - 1;
  private readonly hashes = new IntList();
  private readonly fieldOf = new IntList();
  /** Term t's code units are pool[starts[t], starts[t + 1]). */
  private pool = new Uint16Array(1 << 16);
  private readonly starts = new IntList();
  /** Term texts by number, as strings (the dictionary statement and tests read them). */
  readonly texts: string[] = [];

  constructor() {
    this.starts.push(0);
  }

  get size(): number {
    return this.texts.length;
  }

  /** The field ordinal of each term, by term number (a view: valid until the next new term). */
  fields(): Int32Array {
    return this.fieldOf.view();
  }

  /** The number of `text` in `field`, a new one (= the size before) when the batch had not seen it. */
  intern(field: number, text: string): number {
    return this.internSlice(field, text, 0, text.length);
  }

  /**
   * The number of `text.slice(start, end)` in `field`: the slice is hashed and compared where it is,
   * and made a string only for a new term (the indexer interns the words of a lowercased value this
   * way, batch-analyzer.ts).
   */
  internSlice(field: number, text: string, start: number, end: number): number {
    let h = seed(field);
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
    h = finish(h);
    const length = end - start;
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const v = this.slots[s]!;
      if (v === 0) return this.add(s, h, field, text, start, end);
      const t = v - 1;
      if (this.hashes.at(t) !== h || this.fieldOf.at(t) !== field) continue;
      const from = this.starts.at(t);
      if (this.starts.at(t + 1) - from !== length) continue;
      let i = 0;
      while (i < length && this.pool[from + i] === text.charCodeAt(start + i)) i++;
      if (i === length) return t;
    }
  }

  private add(slot: number, hash: number, field: number, text: string, start: number, end: number): number {
    const t = this.texts.length;
    const from = this.starts.at(t);
    const length = end - start;
    if (from + length > this.pool.length) {
      const grown = new Uint16Array(Math.max(this.pool.length * 2, from + length));
      grown.set(this.pool);
      this.pool = grown;
    }
    for (let i = 0; i < length; i++) this.pool[from + i] = text.charCodeAt(start + i);
    // A long slice is made a string of its own from the pool: V8 makes `slice` of 13 or more
    // characters a view that keeps the whole text alive, and the term dictionary cache keeps terms
    // past the batch. Shorter slices are copies already.
    const whole = start === 0 && end === text.length;
    this.texts.push(
      whole
        ? text
        : length < 13
          ? text.slice(start, end)
          : ownString(this.pool.subarray(from, from + length)),
    );
    this.hashes.push(hash);
    this.fieldOf.push(field);
    this.starts.push(from + length);
    this.slots[slot] = t + 1;
    if (this.texts.length * 2 > this.slots.length) this.grow();
    return t;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    this.mask = this.slots.length - 1;
    for (let t = 0; t < this.texts.length; t++) {
      let s = this.hashes.at(t) & this.mask;
      while (this.slots[s] !== 0) s = (s + 1) & this.mask;
      this.slots[s] = t + 1;
    }
  }
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function seed(field: number): number {
  return Math.imul(FNV_OFFSET ^ field, FNV_PRIME);
}

/** MurmurHash3's finaliser: FNV-1a's low bits alone cluster on similar short words. */
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Code units as a string that refers to nothing else (in pieces: `fromCharCode` takes them as arguments). */
function ownString(units: Uint16Array): string {
  const PIECE = 4096;
  let out = '';
  for (let i = 0; i < units.length; i += PIECE) out += String.fromCharCode(...units.subarray(i, i + PIECE));
  return out;
}
