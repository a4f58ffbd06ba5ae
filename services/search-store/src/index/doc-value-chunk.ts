/**
 * One chunk of a field's doc values column-wise (migration 0027): the values of doc keys
 * [chunk × DOC_VALUE_CHUNK, (chunk + 1) × DOC_VALUE_CHUNK), numeric and keyword entries apart, each
 * sorted by (doc, value) as Lucene's SORTED_NUMERIC and SORTED_SET doc values are. A keyword entry is
 * an ordinal into the chunk's dictionary, which is in byte order (ordinal order = key order).
 */
export const DOC_VALUE_CHUNK = 4096;

export interface DocValueChunk {
  chunk: number;
  /** Per numeric entry, doc_key − chunk × DOC_VALUE_CHUNK, ascending. */
  numDocs: Uint16Array;
  nums: Float64Array;
  kwDocs: Uint16Array;
  kwOrds: Uint32Array;
  dict: string[];
}

/** A chunk's row as Postgres returns it (bytea columns as Buffers, NULL when the part is empty). */
export type DocValueChunkRow = {
  chunk: string | number;
  num_docs: Buffer | null;
  nums: Buffer | null;
  kw_docs: Buffer | null;
  kw_ords: Buffer | null;
  dict: Buffer | null;
};

/** The chunk of a doc key. */
export function chunkOf(docKey: number): number {
  return Math.floor(docKey / DOC_VALUE_CHUNK);
}

function view(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Decodes a row (big-endian, as int2send/int4send/float8send write it). */
export function decodeChunk(row: DocValueChunkRow): DocValueChunk {
  const numDocs = new Uint16Array(row.num_docs ? row.num_docs.byteLength / 2 : 0);
  if (row.num_docs) {
    const v = view(row.num_docs);
    for (let i = 0; i < numDocs.length; i++) numDocs[i] = v.getUint16(i * 2);
  }
  const nums = new Float64Array(numDocs.length);
  if (row.nums) {
    const v = view(row.nums);
    // int4 when every value of the chunk is one (migration 0027), else float8.
    if (row.nums.byteLength === nums.length * 4)
      for (let i = 0; i < nums.length; i++) nums[i] = v.getInt32(i * 4);
    else for (let i = 0; i < nums.length; i++) nums[i] = v.getFloat64(i * 8);
  }
  const kwDocs = new Uint16Array(row.kw_docs ? row.kw_docs.byteLength / 2 : 0);
  if (row.kw_docs) {
    const v = view(row.kw_docs);
    for (let i = 0; i < kwDocs.length; i++) kwDocs[i] = v.getUint16(i * 2);
  }
  const kwOrds = new Uint32Array(kwDocs.length);
  if (row.kw_ords) {
    const v = view(row.kw_ords);
    // int2 when the dictionary has under 32,768 keys, else int4.
    if (row.kw_ords.byteLength === kwOrds.length * 2)
      for (let i = 0; i < kwOrds.length; i++) kwOrds[i] = v.getUint16(i * 2);
    else for (let i = 0; i < kwOrds.length; i++) kwOrds[i] = v.getUint32(i * 4);
  }
  const dict: string[] = [];
  if (row.dict) {
    const v = view(row.dict);
    for (let at = 0; at < row.dict.byteLength;) {
      const length = v.getUint32(at);
      dict.push(row.dict.toString('utf8', at + 4, at + 4 + length));
      at += 4 + length;
    }
  }
  return { chunk: Number(row.chunk), numDocs, nums, kwDocs, kwOrds, dict };
}

/** Keywords in byte order of their UTF-8 (Lucene's BytesRef order, Postgres's COLLATE "C"). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** One value of one document of the chunk, as the writer collects them. */
export interface ChunkEntry {
  /** doc_key − chunk × DOC_VALUE_CHUNK */
  doc: number;
  num: number | null;
  kw: string | null;
}

/** A chunk's entries back out (the writer merges them with new ones, or drops removed documents'). */
export function chunkEntries(chunk: DocValueChunk): ChunkEntry[] {
  const out: ChunkEntry[] = [];
  for (let i = 0; i < chunk.numDocs.length; i++)
    out.push({ doc: chunk.numDocs[i]!, num: chunk.nums[i]!, kw: null });
  for (let i = 0; i < chunk.kwDocs.length; i++)
    out.push({ doc: chunk.kwDocs[i]!, num: null, kw: chunk.dict[chunk.kwOrds[i]!]! });
  return out;
}

/** The row's columns for these entries (any order): sorted by (doc, value), keywords through the dictionary. */
export interface EncodedChunk {
  numCount: number;
  numDocs: Buffer | null;
  nums: Buffer | null;
  kwCount: number;
  kwDocs: Buffer | null;
  kwOrds: Buffer | null;
  dict: Buffer | null;
}

export function encodeChunk(entries: readonly ChunkEntry[]): EncodedChunk {
  const numeric = entries.filter((e) => e.num !== null);
  numeric.sort((a, b) => a.doc - b.doc || a.num! - b.num!);
  const keywords = entries.filter((e) => e.num === null && e.kw !== null);
  const bytes = new Map<string, Buffer>();
  for (const e of keywords) if (!bytes.has(e.kw!)) bytes.set(e.kw!, Buffer.from(e.kw!, 'utf8'));
  const dict = [...bytes.keys()].sort((a, b) => Buffer.compare(bytes.get(a)!, bytes.get(b)!));
  const ordinals = new Map(dict.map((k, i) => [k, i]));
  const ords = keywords.map((e) => ordinals.get(e.kw!)!);
  const order = keywords
    .map((_, i) => i)
    .sort((a, b) => keywords[a]!.doc - keywords[b]!.doc || ords[a]! - ords[b]!);
  const out: EncodedChunk = {
    numCount: numeric.length,
    numDocs: null,
    nums: null,
    kwCount: keywords.length,
    kwDocs: null,
    kwOrds: null,
    dict: null,
  };
  if (numeric.length > 0) {
    const int4 = numeric.every((e) => Number.isInteger(e.num) && e.num! >= -(2 ** 31) && e.num! < 2 ** 31);
    out.numDocs = Buffer.alloc(numeric.length * 2);
    out.nums = Buffer.alloc(numeric.length * (int4 ? 4 : 8));
    numeric.forEach((e, i) => {
      out.numDocs!.writeUInt16BE(e.doc, i * 2);
      if (int4) out.nums!.writeInt32BE(e.num!, i * 4);
      else out.nums!.writeDoubleBE(e.num!, i * 8);
    });
  }
  if (keywords.length > 0) {
    out.kwDocs = Buffer.alloc(keywords.length * 2);
    const int2 = dict.length < 32_768;
    out.kwOrds = Buffer.alloc(keywords.length * (int2 ? 2 : 4));
    order.forEach((k, i) => {
      out.kwDocs!.writeUInt16BE(keywords[k]!.doc, i * 2);
      if (int2) out.kwOrds!.writeUInt16BE(ords[k]!, i * 2);
      else out.kwOrds!.writeUInt32BE(ords[k]!, i * 4);
    });
    const parts: Buffer[] = [];
    for (const key of dict) {
      const b = bytes.get(key)!;
      const length = Buffer.alloc(4);
      length.writeUInt32BE(b.byteLength);
      parts.push(length, b);
    }
    out.dict = Buffer.concat(parts);
  }
  return out;
}
