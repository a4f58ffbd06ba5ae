/**
 * Postgres's binary format for the integer and text arrays the writer sends (array_send: ndim, has-nulls
 * flag, element type OID, length and lower bound, then length + value per element), as query
 * parameters here and inside binary COPY rows (copy-binary.ts).
 *
 * node-postgres sends a Buffer parameter with the binary format code, and the statement's cast
 * (`$2::int4[]`) names the type, so Postgres reads it with array_recv, which also checks the element
 * OID. For the writer's statements that take ~10⁴–10⁶ numbers or terms per batch, this replaces
 * joining them into a literal in Node and parsing it back in Postgres. Numbers must be safe integers
 * in the element type's range.
 */

/** An integer element type: its pg_type OID and width. */
export interface IntType {
  oid: number;
  bytes: 2 | 4 | 8;
}
export const INT2: IntType = { oid: 21, bytes: 2 };
export const INT4: IntType = { oid: 23, bytes: 4 };
export const INT8: IntType = { oid: 20, bytes: 8 };
const TEXT_OID = 25;
const TWO_32 = 2 ** 32;

/** Big-endian, two's complement across two words (a Number has 53 bits; the high word carries the sign). */
export function setInt64(view: DataView, at: number, value: number): void {
  const high = Math.floor(value / TWO_32);
  view.setInt32(at, high);
  view.setUint32(at + 4, value - high * TWO_32);
}

/** setInt64's reverse: a big-endian int8 as a Number (exact for safe integers: keys from sequences). */
export function getInt64(view: DataView, at: number): number {
  return view.getInt32(at) * TWO_32 + view.getUint32(at + 4);
}

/** Bytes of a one-dimensional array without NULLs (an empty array has no dimensions). */
export function intArrayBytes(count: number, type: IntType): number {
  return count === 0 ? 12 : 20 + count * (4 + type.bytes);
}

/** Writes the array at `at` (intArrayBytes(count, type) bytes) and returns the offset after it. */
export function writeIntArray(
  view: DataView,
  at: number,
  type: IntType,
  count: number,
  value: (i: number) => number,
): number {
  at = writeHeader(view, at, type.oid, count);
  // One loop per width: a per-element branch made the 10⁶ positions of a batch twice as slow to write.
  if (type.bytes === 8) {
    for (let i = 0; i < count; i++, at += 12) {
      view.setInt32(at, 8);
      setInt64(view, at + 4, value(i));
    }
  } else if (type.bytes === 4) {
    for (let i = 0; i < count; i++, at += 8) {
      view.setInt32(at, 4);
      view.setInt32(at + 4, value(i));
    }
  } else {
    for (let i = 0; i < count; i++, at += 6) {
      view.setInt32(at, 2);
      view.setInt16(at + 4, value(i));
    }
  }
  return at;
}

function writeHeader(view: DataView, at: number, oid: number, count: number): number {
  view.setInt32(at, count === 0 ? 0 : 1);
  view.setInt32(at + 4, 0);
  view.setInt32(at + 8, oid);
  if (count === 0) return at + 12;
  view.setInt32(at + 12, count);
  view.setInt32(at + 16, 1);
  return at + 20;
}

/** A big-endian view of exactly the buffer's bytes (allocUnsafe buffers may sit inside a shared pool). */
export function viewOf(buffer: Buffer): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function intArrayParam(type: IntType, values: ArrayLike<number>): Buffer {
  const buffer = Buffer.allocUnsafe(intArrayBytes(values.length, type));
  writeIntArray(viewOf(buffer), 0, type, values.length, (i) => values[i]!);
  return buffer;
}

export const int8ArrayParam = (values: ArrayLike<number>): Buffer => intArrayParam(INT8, values);
export const int4ArrayParam = (values: ArrayLike<number>): Buffer => intArrayParam(INT4, values);
export const int2ArrayParam = (values: ArrayLike<number>): Buffer => intArrayParam(INT2, values);

/** A text[] of UTF-8 strings (no escaping: each element is its bytes, after its length). */
export function textArrayParam(values: readonly string[]): Buffer {
  let bytes = 0;
  for (const value of values) bytes += 4 + Buffer.byteLength(value);
  const buffer = Buffer.allocUnsafe(values.length === 0 ? 12 : 20 + bytes);
  const view = viewOf(buffer);
  let at = writeHeader(view, 0, TEXT_OID, values.length);
  for (const value of values) {
    const length = buffer.write(value, at + 4, 'utf8');
    view.setInt32(at, length);
    at += 4 + length;
  }
  return buffer;
}
