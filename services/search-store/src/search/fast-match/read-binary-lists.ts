import type { Pool, PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { copyTermBlocks } from '../../index/postings-reader';
import { PgArrayError } from './parse-pg-int-array';
import { emptyPostings } from './read-packed-blocks';
import type { TermPostings } from './score-match-plan';

/** A term's whole postings and the term's version in the snapshot they were read from. */
export interface BinaryList {
  postings: TermPostings;
  /** As the `terms` view reports it: the last block's `xmin/base_doc_key` (postings-cache.ts). */
  version: string;
}

/**
 * The whole posting lists of `termIds` (index/postings-reader.ts copyTermBlocks), sent by Postgres
 * in COPY's binary format and decoded from the bytes as they arrived, keyed by term id. The postings
 * statement sends packed columns as bytea hex text, since node-pg decodes every column of a row as
 * UTF-8 (no binary results); at 1M documents a common word's list is 3.6 MB of hex, which Postgres
 * formats, the socket carries twice over, Node decodes as UTF-8 and then as hex: measured on one
 * 460k-posting list, 42 ms that way against 26 ms in binary (median of 15). COPY sends its data as
 * raw bytes, which pg-copy-streams hands over unparsed. It is one more statement, so
 * load-match-postings.ts reads this way only lists long enough to pay for the round trip.
 */
export async function readBinaryLists(
  db: Pool | PoolClient,
  indexId: string,
  termIds: readonly string[],
): Promise<Map<string, BinaryList>> {
  const sql = copyTermBlocks(
    BigInt(indexId),
    termIds.map((id) => BigInt(id)),
  );
  const client = isClient(db) ? db : await db.connect();
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of client.query(copyTo(sql)) as AsyncIterable<Buffer>) chunks.push(chunk);
  } catch (error) {
    // A COPY cut short leaves the connection in an unknown state: a pooled one is discarded.
    if (client !== db) client.release(error instanceof Error ? error : true);
    throw error;
  }
  if (client !== db) client.release();
  return parseBinaryBlocks(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
}

function isClient(db: Pool | PoolClient): db is PoolClient {
  return typeof (db as PoolClient).release === 'function';
}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const COLUMNS = 8;

/** One block's place in the COPY data: its packed columns are decoded once the term's size is known. */
interface BlockAt {
  base: number;
  size: number;
  offsets: number;
  offsetWidth: number;
  freqs: number;
  freqWidth: number;
  norms: number;
  maxFreq: number;
  minNorm: number;
  xmin: number;
}

/**
 * COPY's binary format (a signature, flags, a header extension, then per row a field count and each
 * field as a length and its bytes in the type's send format; a field count of -1 ends the data), of
 * copyTermBlocks's columns, into each term's postings. Anything else is refused (PgArrayError).
 */
export function parseBinaryBlocks(data: Buffer): Map<string, BinaryList> {
  if (data.length < 21 || !data.subarray(0, SIGNATURE.length).equals(SIGNATURE))
    throw new PgArrayError('not COPY binary data');
  let p = 19 + data.readUInt32BE(15);
  const field = (size: number): number => {
    const length = data.readInt32BE(p);
    if (size >= 0 && length !== size) throw new PgArrayError(`a field of ${length} bytes, not ${size}`);
    if (length < 0) throw new PgArrayError('a null field');
    p += 4;
    const at = p;
    p += length;
    if (p > data.length) throw new PgArrayError('COPY data cut short');
    return at;
  };
  const terms = new Map<string, BlockAt[]>();
  // Rows come term by term (copyTermBlocks orders them): the term id becomes a string only when it
  // changes, not for each of the ~200k blocks of the 200 bench queries' lists at 1M.
  let termHigh = 0;
  let termLow = 0;
  let list: BlockAt[] | undefined;
  for (;;) {
    const count = data.readInt16BE(p);
    p += 2;
    if (count === -1) break;
    if (count !== COLUMNS) throw new PgArrayError(`a row of ${count} fields, not ${COLUMNS}`);
    const id = field(8);
    const high = data.readInt32BE(id);
    const low = data.readUInt32BE(id + 4);
    if (!list || high !== termHigh || low !== termLow) {
      termHigh = high;
      termLow = low;
      const termId = data.readBigInt64BE(id).toString();
      list = terms.get(termId);
      if (!list) terms.set(termId, (list = []));
    }
    // int8 as a double without a BigInt: exact below 2^53, and rounded once above, as Number(BigInt) is.
    const at = field(8);
    const base = data.readInt32BE(at) * 2 ** 32 + data.readUInt32BE(at + 4);
    const offsets = field(-1);
    const offsetBytes = p - offsets;
    const freqs = field(-1);
    const freqBytes = p - freqs;
    const norms = field(-1);
    const size = p - norms; // a norm is one byte
    const block: BlockAt = {
      base,
      size,
      offsets,
      offsetWidth: width(offsetBytes, size),
      freqs,
      freqWidth: width(freqBytes, size),
      norms,
      maxFreq: data.readInt32BE(field(4)),
      minNorm: data.readInt16BE(field(2)),
      xmin: data.readUInt32BE(field(4)),
    };
    list.push(block);
  }
  const out = new Map<string, BinaryList>();
  for (const [termId, blocks] of terms) out.set(termId, decodeTerm(data, blocks));
  return out;
}

function width(bytes: number, size: number): number {
  const w = bytes / size;
  if (!(size > 0 && w >= 1 && w <= 4 && Number.isInteger(w)))
    throw new PgArrayError(`a packed column of ${bytes} bytes does not hold ${size} values`);
  return w;
}

/** A term's blocks, in doc order as the COPY sends them, into one set of arrays (read-packed-blocks.ts's shape). */
function decodeTerm(data: Buffer, blocks: BlockAt[]): BinaryList {
  let n = 0;
  for (const b of blocks) n += b.size;
  const postings = emptyPostings(n, n, blocks.length);
  const { docs, freqs, norms } = postings;
  const { ends, maxFreq, minNorm } = postings.blocks;
  let at = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    unpackDocs(data, b.offsets, b.offsetWidth, b.size, docs, at, b.base);
    if (b.freqWidth === 1) freqs.set(data.subarray(b.freqs, b.freqs + b.size), at);
    else unpackFreqs(data, b.freqs, b.freqWidth, b.size, freqs, at);
    norms.set(data.subarray(b.norms, b.norms + b.size), at);
    at += b.size;
    ends[i] = at;
    maxFreq[i] = b.maxFreq;
    minNorm[i] = b.minNorm;
  }
  const last = blocks[blocks.length - 1]!;
  return {
    postings,
    version: `${last.xmin}/${last.base}`,
  };
}

/** `count` big-endian unsigned numbers of `width` bytes from `start`, each plus `add` (offsets from the block's base). */
function unpackDocs(
  data: Buffer,
  start: number,
  width: number,
  count: number,
  out: Float64Array,
  at: number,
  add: number,
): void {
  if (width === 1) {
    for (let i = 0; i < count; i++) out[at + i] = data[start + i]! + add;
  } else if (width === 2) {
    for (let i = 0, c = start; i < count; i++, c += 2) out[at + i] = data[c]! * 256 + data[c + 1]! + add;
  } else {
    for (let i = 0, c = start; i < count; i++) {
      let value = 0;
      for (let b = 0; b < width; b++) value = value * 256 + data[c++]!;
      out[at + i] = value + add;
    }
  }
}

function unpackFreqs(
  data: Buffer,
  start: number,
  width: number,
  count: number,
  out: Int32Array,
  at: number,
): void {
  for (let i = 0, c = start; i < count; i++) {
    let value = 0;
    for (let b = 0; b < width; b++) value = value * 256 + data[c++]!;
    out[at + i] = value;
  }
}
