import type { PoolClient } from 'pg';
import {
  writeBlock,
  writeBlockRow,
  blockEnd,
  buildBlocks,
  smallRunAfter,
  unpackBlock,
  type Block,
  type PostingRun,
  type TermTotals,
} from './build-blocks';
import { int8ArrayParam } from '../storage/binary-params';
import { queueStreamedBinaryCopy } from '../storage/copy-binary';
import { EventLoopTurns } from '../storage/event-loop-turns';
import { StatementQueue } from '../storage/statement-queue';

/** A term's last block: the term's totals, where its postings end, and the run of small blocks ending there. */
export interface Tail extends TermTotals {
  baseDocKey: number;
  lastDocKey: number;
  size: number;
  /** Blocks of fewer than 128 documents in a row up to this one (migration 0026; 0 if it is full). */
  smallRun: number;
}

/**
 * A batch's postings by term t (a batch-local number): its id, its tail block when the index had the
 * term, and its postings [start[t], start[t + 1]) of the parallel arrays, in ascending doc key order.
 */
export interface BatchPostings {
  termIds: ArrayLike<number>;
  /** The batch terms in ascending term id order, when the caller has it (sorted here otherwise). */
  order?: ArrayLike<number>;
  tails: (Tail | undefined)[];
  /** The batch's own document frequency and total term frequency per term. */
  docFreqs: ArrayLike<number>;
  totalTermFreqs: ArrayLike<number>;
  start: Int32Array;
  docKeys: Float64Array;
  freqs: Int32Array;
  norms: Int32Array;
}

/**
 * Writes a batch's postings as one segment (migration 0026): new block rows only, by one binary COPY,
 * never an UPDATE of a block already written. Each term's postings become full blocks of 128 and one
 * last smaller block; every block written carries the term's totals after the batch (migration 0010:
 * the last block's are the term's, and the term's last block is always one of these). Small blocks a
 * term gathers batch after batch are counted in `small_run` and merged later in the background
 * (segment-merge.ts), off the writer's path. The COPY goes through the caller's queue and is rendered
 * while Postgres runs the statements queued before it, then streamed: each ~256 KB of rows is sent as
 * soon as it is rendered (`queueStreamedBinaryCopy`), so Postgres parses blocks while Node renders the
 * rest; `onBlocksQueued` runs once the last row is rendered, so the caller renders its next statement
 * while Postgres writes the last blocks.
 *
 * Writers to one index are serialised (FOR UPDATE on its `indices` row, api/write/execute-writes.ts)
 * and doc keys come from one sequence, so a batch's doc keys are above every key already indexed: a
 * term's blocks stay disjoint and ascending. A batch with a key at or below a term's last key (never
 * in the API, but possible for a caller of the seam) takes the merge path: the term's blocks from that
 * key on are read, merged and written again.
 */
export async function writeSegment(
  client: PoolClient,
  indexId: string,
  postings: BatchPostings,
  queue = new StatementQueue(),
  onBlocksQueued?: () => void,
): Promise<Tail[]> {
  const terms = postings.termIds.length;
  /** Per term, its last block once the batch is written (for the dictionary cache). */
  const tailsAfter = new Array<Tail>(terms);
  if (terms === 0) {
    onBlocksQueued?.();
    return tailsAfter;
  }
  // Term id order: the COPY fills the primary key in order.
  const numericIds = postings.termIds;
  const order =
    postings.order ??
    Array.from({ length: terms }, (_, t) => t).sort((a, b) => numericIds[a]! - numericIds[b]!);
  // Postgres is meanwhile writing what the caller queued before: give node-pg its turns.
  const turns = new EventLoopTurns();
  const merging: number[] = [];
  /** The term's totals once the batch is written: what every block it writes carries. */
  const totals = (t: number): TermTotals => ({
    docFreq: (postings.tails[t]?.docFreq ?? 0) + postings.docFreqs[t]!,
    totalTermFreq: (postings.tails[t]?.totalTermFreq ?? 0) + postings.totalTermFreqs[t]!,
  });
  const run = (t: number): PostingRun => ({
    docKeys: postings.docKeys,
    freqs: postings.freqs,
    norms: postings.norms,
    start: postings.start[t]!,
    end: postings.start[t + 1]!,
  });
  for (let t = 0; t < terms; t++) {
    const tail = postings.tails[t];
    if (tail && postings.docKeys[postings.start[t]!]! <= tail.lastDocKey) merging.push(t);
  }
  const merged =
    merging.length > 0 ? await queue.add(() => mergeBlocks(client, indexId, merging, postings, run)) : [];
  const isMerged = new Uint8Array(terms);
  for (const t of merging) isMerged[t] = 1;
  const index = Number(indexId);
  const copying = queueStreamedBinaryCopy(
    client,
    `COPY posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms, max_freq, min_norm,
                         term_doc_freq, term_total_freq, small_run, peaks)
     FROM STDIN`,
    function* (copy) {
      // One run object reused for every term (nothing keeps it): ~38k terms a batch, each allocation counted.
      const r = run(0);
      for (let i = 0; i < terms; i++) {
        const t = order[i]!;
        if (isMerged[t] === 1) continue;
        r.start = postings.start[t]!;
        r.end = postings.start[t + 1]!;
        const after = totals(t);
        let smallRun = postings.tails[t]?.smallRun ?? 0;
        for (let from = r.start; from < r.end;) {
          const end = blockEnd(r, from);
          smallRun = smallRunAfter(smallRun, end - from);
          writeBlockRow(copy, index, numericIds[t]!, r, from, end, after, smallRun);
          if (end === r.end)
            tailsAfter[t] = {
              baseDocKey: r.docKeys[from]!,
              lastDocKey: r.docKeys[end - 1]!,
              size: end - from,
              smallRun,
              docFreq: after.docFreq,
              totalTermFreq: after.totalTermFreq,
            };
          from = end;
        }
        yield;
      }
      for (const { t, block, smallRun } of merged) {
        const after = totals(t);
        writeBlock(copy, index, numericIds[t]!, block, after, smallRun);
        tailsAfter[t] = {
          baseDocKey: block.baseDocKey,
          lastDocKey: block.lastDocKey,
          size: block.offsets.length,
          smallRun,
          docFreq: after.docFreq,
          totalTermFreq: after.totalTermFreq,
        };
        yield;
      }
      // Runs once every row is rendered, in the turn that writes the last ones: what the caller queues
      // then goes after the COPY (queued before the first row).
      if (onBlocksQueued) queueMicrotask(onBlocksQueued);
    },
    { queue, turns },
  );
  await copying;
  return tailsAfter;
}

/** The last block of each term (one backward probe of the primary key per term). */
export async function findTails(
  client: PoolClient,
  indexId: string,
  termIds: number[],
): Promise<Map<number, Tail>> {
  if (termIds.length === 0) return new Map();
  const { rows } = await client.query<{
    term_id: string;
    base: string;
    last: string;
    size: number;
    df: number;
    ttf: string;
    small_run: number;
  }>(
    `SELECT u.term_id, t.base_doc_key AS base, t.last_doc_key AS last, t.size, t.term_doc_freq AS df,
            t.term_total_freq AS ttf, t.small_run
     FROM unnest($2::bigint[]) AS u(term_id)
     CROSS JOIN LATERAL (
       SELECT base_doc_key, last_doc_key, octet_length(norms) AS size, term_doc_freq, term_total_freq, small_run
       FROM posting_blocks b
       WHERE b.index_id = $1 AND b.term_id = u.term_id ORDER BY b.base_doc_key DESC LIMIT 1) t`,
    [indexId, int8ArrayParam(termIds)],
  );
  return new Map(
    rows.map((r) => [
      Number(r.term_id),
      {
        baseDocKey: Number(r.base),
        lastDocKey: Number(r.last),
        size: r.size,
        smallRun: r.small_run,
        docFreq: r.df,
        totalTermFreq: Number(r.ttf),
      },
    ]),
  );
}

/** The merge path: takes out every block from the batch's first key on and returns the merged blocks. */
async function mergeBlocks(
  client: PoolClient,
  indexId: string,
  terms: number[],
  postings: BatchPostings,
  run: (t: number) => PostingRun,
): Promise<{ t: number; block: Block; smallRun: number }[]> {
  const termIds = terms.map((t) => postings.termIds[t]!);
  const { rows } = await client.query<{
    term_id: string;
    base_doc_key: string;
    doc_offsets: Buffer;
    freqs: Buffer;
    norms: Buffer;
  }>(
    `DELETE FROM posting_blocks b USING unnest($2::bigint[], $3::bigint[]) AS u(term_id, first_key)
     WHERE b.index_id = $1 AND b.term_id = u.term_id AND b.last_doc_key >= u.first_key
     RETURNING b.term_id, b.base_doc_key, b.doc_offsets, b.freqs, b.norms`,
    [indexId, termIds, terms.map((t) => postings.docKeys[postings.start[t]!]!)],
  );
  type Posting = [docKey: number, freq: number, norm: number];
  const merged = new Map<number, { t: number; list: Posting[] }>();
  terms.forEach((t, i) => {
    const r = run(t);
    const list: Posting[] = [];
    for (let p = r.start; p < r.end; p++) list.push([r.docKeys[p]!, r.freqs[p]!, r.norms[p]!]);
    merged.set(termIds[i]!, { t, list });
  });
  for (const row of rows) {
    const { list } = merged.get(Number(row.term_id))!;
    const base = Number(row.base_doc_key);
    const block = unpackBlock(row.doc_offsets, row.freqs, row.norms);
    block.offsets.forEach((offset, i) => list.push([base + offset, block.freqs[i]!, block.norms[i]!]));
  }
  const out: { t: number; block: Block; smallRun: number }[] = [];
  for (const { t, list } of merged.values()) {
    list.sort((a, b) => a[0] - b[0]);
    const blocks = buildBlocks({
      docKeys: list.map((p) => p[0]),
      freqs: list.map((p) => p[1]),
      norms: list.map((p) => p[2]),
      start: 0,
      end: list.length,
    });
    let smallRun = 0;
    for (const block of blocks) {
      smallRun = smallRunAfter(smallRun, block.offsets.length);
      out.push({ t, block, smallRun });
    }
  }
  return out;
}

/**
 * Removes documents from the blocks, set-based: their token streams (doc_tokens, the forward index)
 * give each removed (term, doc, freq); each such posting lives in the first block of its term with
 * base_doc_key <= doc_key (one primary-key probe); every hit block is rewritten without the removed
 * documents (packed again at its new widths by migration 0030's posting_bytes, its peaks computed
 * again over the postings kept, as 0032's block_peaks does), or dropped when nothing is left. The same statement reads each term's totals off its last
 * block as it was; a second sets the lowered totals on the last block that remains (migration 0010).
 * Returns the term ids no document uses any more.
 */
export async function removePostings(
  client: PoolClient,
  indexId: string,
  docKeys: string[],
): Promise<string[]> {
  const { rows } = await client.query<{ term_id: string; df: number; ttf: string }>(
    `WITH fwd AS (
       DELETE FROM doc_tokens WHERE index_id = $1 AND doc_key = ANY($2::bigint[])
         AND field_id = ANY(ARRAY(SELECT field_id FROM fields WHERE index_id = $1)) -- the key's order (0007)
       RETURNING doc_key, term_ids),
     gone AS (
       SELECT x.term_id::int8 AS term_id, f.doc_key, count(*) AS freq -- int4 in the streams (0028)
       FROM fwd f, unnest(f.term_ids) AS x(term_id) WHERE x.term_id <> 0
       GROUP BY x.term_id, f.doc_key),
     hit AS (
       SELECT g.term_id, b.base_doc_key, array_agg(g.doc_key) AS keys
       FROM gone g CROSS JOIN LATERAL (
         SELECT base_doc_key FROM posting_blocks b
         WHERE b.index_id = $1 AND b.term_id = g.term_id AND b.base_doc_key <= g.doc_key
         ORDER BY b.base_doc_key DESC LIMIT 1) b
       GROUP BY g.term_id, b.base_doc_key),
     kept AS (
       SELECT h.term_id, h.base_doc_key AS old_base, k.*
       FROM hit h
       JOIN posting_blocks b ON b.index_id = $1 AND b.term_id = h.term_id AND b.base_doc_key = h.base_doc_key
       CROSS JOIN LATERAL (
         SELECT min(u.k) AS base, max(u.k) AS last,
                array_agg(u.k ORDER BY u.k) AS keys, array_agg(u.f ORDER BY u.k) AS freqs,
                array_agg(u.n ORDER BY u.k) AS norms, max(u.f) AS max_freq, min(u.n) AS min_norm,
                CASE WHEN count(*) FILTER (WHERE u.peak) = 1 THEN ''::bytea
                     ELSE string_agg(int4send(u.f) || substring(int4send(u.n) FROM 4), ''::bytea ORDER BY u.f)
                            FILTER (WHERE u.peak) END AS peaks
         FROM (
           -- The front of what is kept (0032's block_peaks, over the rows at hand): by norm, then freq
           -- descending, a posting whose freq beats every one before it.
           SELECT v.*, v.f > coalesce(max(v.f) OVER (ORDER BY v.n, v.f DESC
                                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS peak
           FROM (
             SELECT b.base_doc_key + posting_int(b.doc_offsets, octet_length(b.doc_offsets) / octet_length(b.norms), s.i) AS k,
                    posting_int(b.freqs, octet_length(b.freqs) / octet_length(b.norms), s.i) AS f,
                    get_byte(b.norms, s.i) AS n
             FROM unnest(block_subscripts(octet_length(b.norms))) AS s(i)) v -- packed (0030)
           WHERE v.k <> ALL (h.keys)) u) k),
     dropped AS (
       DELETE FROM posting_blocks b USING kept k
       WHERE b.index_id = $1 AND b.term_id = k.term_id AND b.base_doc_key = k.old_base AND k.base IS NULL),
     shrunk AS (
       UPDATE posting_blocks b
       SET base_doc_key = k.base, last_doc_key = k.last, freqs = posting_bytes(k.freqs),
           norms = posting_bytes(k.norms), max_freq = k.max_freq, min_norm = k.min_norm, peaks = k.peaks,
           doc_offsets = posting_bytes(ARRAY(SELECT (x - k.base)::int4 FROM unnest(k.keys) AS x ORDER BY x))
       FROM kept k
       WHERE b.index_id = $1 AND b.term_id = k.term_id AND b.base_doc_key = k.old_base AND k.base IS NOT NULL),
     counted AS (
       SELECT term_id, count(*) AS df, sum(freq) AS ttf FROM gone GROUP BY term_id)
     SELECT c.term_id, l.term_doc_freq - c.df AS df, l.term_total_freq - c.ttf AS ttf
     FROM counted c CROSS JOIN LATERAL (
       SELECT term_doc_freq, term_total_freq FROM posting_blocks b
       WHERE b.index_id = $1 AND b.term_id = c.term_id ORDER BY b.base_doc_key DESC LIMIT 1) l
     ORDER BY c.term_id`,
    [indexId, docKeys],
  );
  const left = rows.filter((r) => r.df > 0);
  if (left.length > 0)
    await client.query(
      `UPDATE posting_blocks b SET term_doc_freq = x.df, term_total_freq = x.ttf
       FROM unnest($2::bigint[], $3::int4[], $4::int8[]) AS x(term_id, df, ttf)
       CROSS JOIN LATERAL (
         SELECT base_doc_key FROM posting_blocks l
         WHERE l.index_id = $1 AND l.term_id = x.term_id ORDER BY l.base_doc_key DESC LIMIT 1) l
       WHERE b.index_id = $1 AND b.term_id = x.term_id AND b.base_doc_key = l.base_doc_key`,
      [indexId, left.map((r) => r.term_id), left.map((r) => r.df), left.map((r) => r.ttf)],
    );
  return rows.filter((r) => r.df <= 0).map((r) => r.term_id);
}
