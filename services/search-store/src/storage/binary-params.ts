/**
 * Array parameters in Postgres's binary format (array_send: ndim, has-nulls flag, element type OID,
 * length and lower bound, then length + value per element). node-postgres sends a Buffer parameter
 * with the binary format code, and the statement's cast (`$2::int4[]`) names the type, so Postgres
 * reads it with array_recv, which also checks the element OID. For the writer's statements that take
 * ~10⁴–10⁶ numbers or terms per batch, this replaces joining them into a literal in Node and parsing
 * it back in Postgres. Numbers must be safe integers in the element type's range.
 */

const INT2_OID = 21;
const INT4_OID = 23;
const INT8_OID = 20;
const TEXT_OID = 25;
const TWO_32 = 2 ** 32;

function header(count: number, oid: number, bytes: number): { buffer: Buffer; view: DataView; at: number } {
  const size = count === 0 ? 12 : 20 + bytes;
  const buffer = Buffer.allocUnsafe(size);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  view.setInt32(0, count === 0 ? 0 : 1);
  view.setInt32(4, 0);
  view.setInt32(8, oid);
  if (count === 0) return { buffer, view, at: 12 };
  view.setInt32(12, count);
  view.setInt32(16, 1);
  return { buffer, view, at: 20 };
}

export function int8ArrayParam(values: ArrayLike<number>): Buffer {
  const { buffer, view } = header(values.length, INT8_OID, values.length * 12);
  let at = 20;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    const high = Math.floor(value / TWO_32);
    view.setInt32(at, 8);
    view.setInt32(at + 4, high);
    view.setUint32(at + 8, value - high * TWO_32);
    at += 12;
  }
  return buffer;
}

export function int4ArrayParam(values: ArrayLike<number>): Buffer {
  const { buffer, view } = header(values.length, INT4_OID, values.length * 8);
  let at = 20;
  for (let i = 0; i < values.length; i++) {
    view.setInt32(at, 4);
    view.setInt32(at + 4, values[i]!);
    at += 8;
  }
  return buffer;
}

export function int2ArrayParam(values: ArrayLike<number>): Buffer {
  const { buffer, view } = header(values.length, INT2_OID, values.length * 6);
  let at = 20;
  for (let i = 0; i < values.length; i++) {
    view.setInt32(at, 2);
    view.setInt16(at + 4, values[i]!);
    at += 6;
  }
  return buffer;
}

/** A text[] of UTF-8 strings (no escaping: each element is its bytes, after its length). */
export function textArrayParam(values: readonly string[]): Buffer {
  let bytes = 0;
  for (const value of values) bytes += 4 + Buffer.byteLength(value);
  const { buffer, view } = header(values.length, TEXT_OID, bytes);
  let at = 20;
  for (const value of values) {
    const length = buffer.write(value, at + 4, 'utf8');
    view.setInt32(at, length);
    at += 4 + length;
  }
  return buffer;
}
