import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyChunks } from './copy-lines';
import { EventLoopTurns } from './event-loop-turns';
import { StatementQueue } from './statement-queue';
import {
  INT2,
  INT4,
  INT8,
  intArrayBytes,
  setInt64,
  viewOf,
  writeIntArray,
  type IntType,
} from './binary-params';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Rows go into buffers of about this many bytes, set aside when full: no copying of one growing buffer. */
const CHUNK_BYTES = 256 * 1024;
const NONE: Buffer[] = [];

/**
 * Rows in COPY's binary format (PostgreSQL docs, "COPY: Binary Format"): a signature, flags and header
 * extension, then per row a 16-bit field count and per field a 32-bit length and the value in network
 * byte order, then -1. Integer arrays go as array_send writes them (binary-params.ts).
 *
 * For the writer's integer-heavy tables (token streams, posting blocks) this replaces rendering numbers
 * as text and Postgres parsing them back: 1,006,079 term ids of a 5,000-document batch took 190 ms to
 * render and 205 ms to COPY as text, ~8 ms (through a DataView) and 110 ms in binary. Integers and texts are
 * written here: a number must be a safe integer in the column type's range (doc keys and term ids come
 * from sequences).
 */
export class BinaryCopy {
  private buffer = Buffer.allocUnsafe(CHUNK_BYTES * 2);
  /** DataView's setters compile to plain stores; Buffer.writeInt32BE checks its arguments on every call. */
  private view = viewOf(this.buffer);
  private at = 0;
  private readonly full: Buffer[] = [];

  constructor() {
    SIGNATURE.copy(this.buffer, 0);
    this.at = SIGNATURE.length;
    this.int32(0); // flags: no OIDs
    this.int32(0); // header extension length
  }

  row(fields: number): this {
    this.room(2);
    this.view.setInt16(this.at, fields);
    this.at += 2;
    return this;
  }

  int8(value: number): this {
    this.room(12);
    this.int32(8);
    this.int64(value);
    return this;
  }

  int4(value: number): this {
    this.room(8);
    this.int32(4);
    this.int32(value);
    return this;
  }

  int2(value: number): this {
    this.room(6);
    this.int32(2);
    this.view.setInt16(this.at, value);
    this.at += 2;
    return this;
  }

  /**
   * A text value in UTF-8 (also a `json` column's binary form: json_recv takes the text as it is, and
   * validates it as json_in does). No escaping, where COPY's text format needs every backslash doubled.
   */
  text(value: string): this {
    // At most 3 bytes per UTF-16 code unit; the length is written once the bytes are.
    this.room(4 + 3 * value.length);
    const at = this.at;
    const bytes = this.buffer.write(value, at + 4, 'utf8');
    this.view.setInt32(at, bytes);
    this.at = at + 4 + bytes;
    return this;
  }

  /** An int8[] of `count` elements, each `value(i)`. */
  int8Array(count: number, value: (i: number) => number): this {
    return this.intArray(INT8, count, value);
  }

  int4Array(count: number, value: (i: number) => number): this {
    return this.intArray(INT4, count, value);
  }

  int2Array(count: number, value: (i: number) => number): this {
    return this.intArray(INT2, count, value);
  }

  /**
   * A bytea of `count` unsigned big-endian numbers of `width` (1–4) bytes each, each `value(i)`: the
   * packed columns of posting blocks (migration 0030, index/build-blocks.ts).
   */
  packed(count: number, width: number, value: (i: number) => number): this {
    const bytes = count * width;
    this.room(4 + bytes);
    this.int32(bytes);
    const view = this.view;
    let at = this.at;
    // One loop per width, as writeIntArray: no per-element branch.
    if (width === 1) for (let i = 0; i < count; i++) view.setUint8(at++, value(i));
    else if (width === 2) for (let i = 0; i < count; i++, at += 2) view.setUint16(at, value(i));
    else if (width === 3)
      for (let i = 0; i < count; i++, at += 3) {
        const v = value(i);
        view.setUint8(at, v >>> 16);
        view.setUint16(at + 1, v & 0xffff);
      }
    else for (let i = 0; i < count; i++, at += 4) view.setUint32(at, value(i));
    this.at = at;
    return this;
  }

  /** The chunks filled so far (taken: the writer keeps only what it builds next). */
  takeChunks(): Buffer[] {
    return this.full.length === 0 ? NONE : this.full.splice(0);
  }

  /** Everything left, with the trailer: the last chunk. */
  finish(): Buffer {
    this.room(2);
    this.view.setInt16(this.at, -1);
    this.at += 2;
    const last = this.buffer.subarray(0, this.at);
    this.buffer = Buffer.alloc(0);
    this.view = viewOf(this.buffer);
    this.at = 0;
    return last;
  }

  private intArray(type: IntType, count: number, value: (i: number) => number): this {
    const bytes = intArrayBytes(count, type);
    this.room(4 + bytes);
    this.int32(bytes);
    this.at = writeIntArray(this.view, this.at, type, count, value);
    return this;
  }

  private int32(value: number): void {
    this.view.setInt32(this.at, value);
    this.at += 4;
  }

  private int64(value: number): void {
    setInt64(this.view, this.at, value);
    this.at += 8;
  }

  /** Makes room for `bytes` more: a filled chunk is set aside once it passes CHUNK_BYTES. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    if (this.at >= CHUNK_BYTES) {
      this.full.push(this.buffer.subarray(0, this.at));
      this.buffer = Buffer.allocUnsafe(Math.max(CHUNK_BYTES * 2, bytes));
      this.view = viewOf(this.buffer);
      this.at = 0;
      return;
    }
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(bigger, 0, 0, this.at);
    this.buffer = bigger;
    this.view = viewOf(bigger);
  }
}

/**
 * Renders the rows `fill` writes (a generator: it yields between rows), then sends the binary COPY
 * through the caller's queue (`StatementQueue`): the writer renders it while Postgres runs the
 * statements queued before, giving the event loop a turn whenever one is due so that those move on
 * meanwhile (`EventLoopTurns`). Resolves when the COPY is done.
 */
export async function queueBinaryCopy(
  client: PoolClient,
  sql: string,
  fill: (copy: BinaryCopy) => Iterable<unknown>,
  { queue = new StatementQueue(), turns = new EventLoopTurns() } = {},
): Promise<void> {
  const copy = new BinaryCopy();
  const rows = fill(copy)[Symbol.iterator]();
  for (let n = 1; rows.next().done !== true; n++) if (n % 64 === 0 && turns.due()) await turns.give();
  const chunks = [...copy.takeChunks(), copy.finish()];
  await queue.add(() => copyChunks(client, `${sql} (FORMAT binary)`, chunks));
}

/**
 * As `queueBinaryCopy`, but the COPY takes its place in the caller's queue at once and its rows go as
 * they are rendered: once the queue reaches it (the statements before it ended), each filled chunk
 * (~256 KB) is written as soon as it is full, with a turn of the event loop after it so that node-pg
 * hands it to the socket, and Postgres parses it while Node renders the next. Rendering the posting
 * blocks of a 5,000-document bulk took ~100 ms that Postgres spent idle before its COPY began (issue
 * 23). The connection is in COPY mode while the rows are rendered: only for a writer that queues
 * nothing else meanwhile (posting-blocks.repo.ts renders the next statement once this one's rows are
 * done).
 *
 * A failure stops the rendering: when a statement before it failed the COPY is never sent; when the
 * COPY fails midway (Postgres's error arrives while rows are still being rendered) nothing more is
 * written; when the rendering throws, an open COPY is cancelled (CopyFail) and its end waited for. In
 * each case this settles only once nothing more will reach the client, so the caller's ROLLBACK comes
 * after everything it sent.
 */
export async function queueStreamedBinaryCopy(
  client: PoolClient,
  sql: string,
  fill: (copy: BinaryCopy) => Iterable<unknown>,
  { queue = new StatementQueue(), turns = new EventLoopTurns() } = {},
): Promise<void> {
  const copy = new BinaryCopy();
  /** Chunks rendered before the queue reached the COPY. */
  let pending: Buffer[] = [];
  let stream: Writable | undefined;
  let rendered = false;
  /** Set when the rendering threw before the COPY was sent: it is then never sent. */
  let renderError: unknown;
  let failed = false;
  const sent = queue.add(() => {
    if (renderError !== undefined) return Promise.reject(renderError);
    const opened = client.query(copyFrom(`${sql} (FORMAT binary)`));
    stream = opened;
    const done = finished(opened);
    for (const chunk of pending) opened.write(chunk);
    pending = [];
    if (rendered) opened.end();
    return done;
  });
  // Awaited below; a failure while the rows are rendered only stops the rendering.
  sent.catch(() => (failed = true));
  const rows = fill(copy)[Symbol.iterator]();
  try {
    for (let n = 1; !failed; n++) {
      if (rows.next().done === true) break;
      if (n % 64 !== 0) continue;
      const chunks = copy.takeChunks();
      if (chunks.length > 0 && stream) {
        for (const chunk of chunks) stream.write(chunk);
        await turns.give();
      } else {
        for (const chunk of chunks) pending.push(chunk);
        if (turns.due()) await turns.give();
      }
    }
  } catch (error) {
    if (stream) stream.destroy(error instanceof Error ? error : new Error(String(error)));
    else renderError = error;
    await sent.catch(() => undefined);
    throw error;
  }
  if (failed) {
    // Postgres refused the COPY or a statement before it: the generator is closed, nothing more sent.
    rows.return?.();
    await sent;
    return;
  }
  const last = [...copy.takeChunks(), copy.finish()];
  rendered = true;
  if (stream) {
    for (const chunk of last) stream.write(chunk);
    stream.end();
  } else for (const chunk of last) pending.push(chunk);
  await sent;
}

/**
 * A binary COPY whose rows are sent as they are rendered: each filled chunk is written at once, so
 * Postgres parses one while Node renders the next (for megabytes of rows: the documents' sources).
 */
export async function streamBinaryCopy(
  client: PoolClient,
  sql: string,
  fill: (copy: BinaryCopy) => Iterable<unknown>,
): Promise<void> {
  const stream = client.query(copyFrom(`${sql} (FORMAT binary)`));
  const done = finished(stream);
  // Awaited below; a failure while this waits for a drain must not go unhandled meanwhile.
  done.catch(() => undefined);
  const copy = new BinaryCopy();
  for (const _row of fill(copy)) {
    for (const chunk of copy.takeChunks()) if (!stream.write(chunk)) await once(stream, 'drain');
  }
  stream.end(copy.finish());
  await done;
}
