/**
 * Lucene's SmallFloat.intToByte4 / byte4ToInt: a field length squeezed into one byte (3 mantissa bits),
 * exact up to 40 and rounded down beyond. API-NOTES §A2.2; lucene/core/.../util/SmallFloat.java.
 */
function bitLength(i: number): number {
  return 32 - Math.clz32(i);
}

function longToInt4(i: number): number {
  const numBits = bitLength(i);
  if (numBits < 4) return i;
  const shift = numBits - 4;
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

const MAX_INT4 = longToInt4(2147483647);
const NUM_FREE_VALUES = 255 - MAX_INT4;

export function intToByte4(length: number): number {
  if (length < 0) throw new RangeError(`field length must be >= 0, got ${length}`);
  if (length < NUM_FREE_VALUES) return length;
  return NUM_FREE_VALUES + longToInt4(length - NUM_FREE_VALUES);
}

export function byte4ToInt(b: number): number {
  if (b < NUM_FREE_VALUES) return b;
  return NUM_FREE_VALUES + int4ToLong(b - NUM_FREE_VALUES);
}

/** BM25Similarity.LENGTH_TABLE: the decoded length of every norm byte. */
export const LENGTH_TABLE: readonly number[] = Array.from({ length: 256 }, (_, i) => byte4ToInt(i));
