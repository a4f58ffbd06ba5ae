/**
 * Postgres's text form of a one-dimensional integer array (`{3,17,-2}`, array_out), and of the packed
 * columns of posting blocks (bytea hex, migration 0030), parsed straight into typed arrays: no
 * intermediate strings or number arrays. node-pg's generic array parser
 * allocates a string per element, which would dominate the fast path's cost on long posting lists.
 * (node-pg's `binary: true` is no way out: its protocol parser decodes every column as UTF-8 text
 * first, which corrupts binary values.)
 */
export class PgArrayError extends Error {}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** The number of elements of an array literal. */
export function countIntArray(text: string): number {
  if (text.charCodeAt(0) !== OPEN || text.charCodeAt(text.length - 1) !== CLOSE)
    throw new PgArrayError(`not an array literal: ${text.slice(0, 20)}`);
  if (text.length === 2) return 0;
  let n = 1;
  for (let i = 1; i < text.length - 1; i++) if (text.charCodeAt(i) === COMMA) n++;
  return n;
}

/**
 * Writes the array's elements, each plus `add`, into `out` from index `at`; returns the index after
 * the last one written. The caller sized `out` with countIntArray.
 */
export function readIntArray(
  text: string,
  out: Int32Array | Uint8Array | Float64Array,
  at = 0,
  add = 0,
): number {
  if (text.charCodeAt(0) !== OPEN || text.charCodeAt(text.length - 1) !== CLOSE)
    throw new PgArrayError(`not an array literal: ${text.slice(0, 20)}`);
  const end = text.length - 1;
  if (end === 1) return at;
  let value = 0;
  let negative = false;
  let digits = 0;
  for (let i = 1; i <= end; i++) {
    const c = text.charCodeAt(i);
    if (c >= ZERO && c <= NINE) {
      value = value * 10 + (c - ZERO);
      digits++;
    } else if (c === MINUS && digits === 0 && !negative) {
      negative = true;
    } else if (c === COMMA || i === end) {
      if (digits === 0) throw new PgArrayError(`malformed integer array element at ${i}`);
      out[at++] = (negative ? -value : value) + add;
      value = 0;
      digits = 0;
      negative = false;
    } else {
      // NULL, nested arrays, spaces: none occur in the columns read this way.
      throw new PgArrayError(`unexpected character ${JSON.stringify(text[i])} at ${i}`);
    }
  }
  return at;
}

/** `int4[]` text → Int32Array. */
export function parseInt4Array(text: string): Int32Array {
  const out = new Int32Array(countIntArray(text));
  readIntArray(text, out);
  return out;
}

/** `int2[]` text of norm bytes (0–255) → Uint8Array. */
export function parseByteArray(text: string): Uint8Array {
  const out = new Uint8Array(countIntArray(text));
  readIntArray(text, out);
  return out;
}

const BACKSLASH = 0x5c;
const LOWER_X = 0x78;
/** Hex digit value by char code, -1 for anything else (packedHexAt reads single elements in place). */
const NIBBLE = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) NIBBLE[ZERO + c] = c;
for (let c = 0; c < 6; c++) NIBBLE[0x61 + c] = NIBBLE[0x41 + c] = 10 + c;

/** The byte length of Postgres's hex text of a bytea (`\x0a1b…`, byteaout with bytea_output 'hex', the default). */
export function byteaLength(text: string): number {
  if (text.charCodeAt(0) !== BACKSLASH || text.charCodeAt(1) !== LOWER_X || text.length % 2 !== 0)
    throw new PgArrayError(`not a hex bytea: ${text.slice(0, 20)}`);
  return (text.length - 2) / 2;
}

let scratch = Buffer.allocUnsafe(1024);

/**
 * A packed posting block column (migration 0030) in its bytea hex text: `count` unsigned big-endian
 * numbers of one width (its byte length / count, 1 to 4), each plus `add`, written into `out` from
 * index `at`; returns the index after the last one written. Node's own hex decoder (native, into a
 * buffer reused from call to call) turns the text into bytes: at 1M documents a common term's list is
 * megabytes of hex, and a loop over its characters in JavaScript took about twice as long (issue 23). That decoder stops
 * quietly at the first character that is not a hex digit, so the byte count is checked.
 */
export function readPackedHex(
  text: string,
  count: number,
  out: Int32Array | Uint8Array | Float64Array,
  at = 0,
  add = 0,
): number {
  const bytes = byteaLength(text);
  const width = bytes / count;
  if (count === 0 ? bytes !== 0 : !(width >= 1 && width <= 4 && Number.isInteger(width)))
    throw new PgArrayError(`a packed column of ${bytes} bytes does not hold ${count} values`);
  if (count === 0) return at;
  // Decoded into one buffer kept for the purpose: a list of thousands of blocks allocates nothing.
  if (scratch.length < bytes) scratch = Buffer.allocUnsafe(Math.max(bytes, 2 * scratch.length));
  const raw = scratch;
  const written = raw.write(text.substring(2), 0, bytes, 'hex');
  if (written !== bytes) throw new PgArrayError(`not a hex digit at ${2 + 2 * written}`);
  if (width === 1) {
    for (let i = 0; i < count; i++) out[at++] = raw[i]! + add;
  } else if (width === 2) {
    for (let i = 0, c = 0; i < count; i++, c += 2) out[at++] = raw[c]! * 256 + raw[c + 1]! + add;
  } else {
    for (let i = 0, c = 0; i < count; i++) {
      let value = 0;
      for (let b = 0; b < width; b++) value = value * 256 + raw[c++]!;
      out[at++] = value + add;
    }
  }
  return at;
}

/**
 * Element `i` of a packed column in its bytea hex text (readPackedHex's format) at `width` bytes an
 * element, read in place: a conjunction probes a few postings of a long block without parsing it
 * (postings-at.ts). The caller checked the width and the bounds (packedWidth).
 */
export function packedHexAt(text: string, width: number, i: number): number {
  let value = 0;
  for (let b = 0, c = 2 + 2 * width * i; b < width; b++, c += 2) {
    const high = NIBBLE[text.charCodeAt(c)] ?? -1;
    const low = NIBBLE[text.charCodeAt(c + 1)] ?? -1;
    if (high < 0 || low < 0) throw new PgArrayError(`not a hex digit at ${c}`);
    value = value * 256 + high * 16 + low;
  }
  return value;
}

/** The width (1 to 4 bytes) of a packed column of `count` elements in bytea hex, as readPackedHex checks it. */
export function packedWidth(text: string, count: number): number {
  const bytes = byteaLength(text);
  const width = bytes / count;
  if (!(count > 0 && width >= 1 && width <= 4 && Number.isInteger(width)))
    throw new PgArrayError(`a packed column of ${bytes} bytes does not hold ${count} values`);
  return width;
}
