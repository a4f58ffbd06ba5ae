import type { PoolClient } from 'pg';
import {
  writeBlock,
  writeBlockRow,
  blockEnd,
  buildBlocks,
  TailAppends,
  tailRoom,
  BLOCK_SIZE,
  type Block,
  type PostingRun,
  type TermTotals,
} from './build-blocks';
import { int2ArrayParam, int4ArrayParam, int8ArrayParam } from '../storage/binary-params';
import { queueBinaryCopy } from '../storage/copy-binary';
import { EventLoopTurns } from '../storage/event-loop-turns';
import { StatementQueue } from '../storage/statement-queue';
import { withNestedLoops } from './with-nested-loops';

/** A term's last block: where a batch's postings for the term are appended, and the term's totals. */
export interface Tail extends TermTotals {
  baseDocKey: number;
  lastDocKey: number;
  size: number;
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
 * The SQL of block postings (migration 0004): a batch appends to each term's tail block and writes
 * whole new blocks after it, in two round trips whatever the batch size (the tails come with the term
 * ids, findOrAddTerms, or from the dictionary cache): extend the tails with one UPDATE, COPY the new
 * blocks. Both go through the caller's queue: the UPDATE is queued first, and the blocks are rendered
 * while Postgres runs it. `onTailsSent` runs as the UPDATE goes out (or at once, with no tail to
 * extend): the caller's own rendering can wait until Postgres has the batch's longest statement.
 * Every block written carries the term's totals after the batch (migration 0010): the term's last
 * block is always among them, and the last block's totals are the term's.
 *
 * Writers to one index are serialised (FOR UPDATE on its `indices` row, api/write/execute-writes.ts)
 * and doc keys come from one sequence, so a batch's doc keys are above every key already indexed: the
 * append path. A batch with a key at or below a term's last key (never in the API, but possible for a
 * caller of the seam) takes the merge path: the term's blocks from that key on are read, merged and
 * written again.
 */
export async function appendPostings(
  client: PoolClient,
  indexId: string,
  postings: BatchPostings,
  queue = new StatementQueue(),
  onTailsSent?: () => void,
): Promise<Tail[]> {
  const terms = postings.termIds.length;
  /** Per term, its last block once the batch is written (for the dictionary cache). */
  const tailsAfter = new Array<Tail>(terms);
  if (terms === 0) return tailsAfter;
  // Term id order: the tail UPDATE locks rows in key order and the COPY fills the primary key in order.
  const numericIds = postings.termIds;
  const order =
    postings.order ??
    Array.from({ length: terms }, (_, t) => t).sort((a, b) => numericIds[a]! - numericIds[b]!);
  // Postgres is meanwhile writing what the caller queued before: give node-pg its turns.
  const turns = new EventLoopTurns();
  const extended = new TailAppends();
  const merging: number[] = [];
  /** Per term in `order`, the first posting that goes to new blocks. */
  const fresh = new Int32Array(terms);
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
  // One run object reused for every term here and one in the COPY below (nothing keeps them): ~38k
  // terms a batch, each allocation counted.
  const r = run(0);
  for (let i = 0; i < terms; i++) {
    if (i % 64 === 63 && turns.due()) await turns.give();
    const t = order[i]!;
    r.start = postings.start[t]!;
    r.end = postings.start[t + 1]!;
    fresh[t] = r.start;
    const tail = postings.tails[t];
    if (!tail) continue;
    if (r.docKeys[r.start]! <= tail.lastDocKey) {
      merging.push(t);
      fresh[t] = r.end;
      continue;
    }
    const room = tail.size < BLOCK_SIZE ? tailRoom(tail.baseDocKey, tail.size, r) : 0;
    const after = totals(t);
    if (room > 0) extended.add(postings.termIds[t]!, tail.baseDocKey, r, room, after);
    fresh[t] = r.start + room;
    tailsAfter[t] = {
      baseDocKey: tail.baseDocKey,
      lastDocKey: room > 0 ? r.docKeys[r.start + room - 1]! : tail.lastDocKey,
      size: tail.size + room,
      docFreq: after.docFreq,
      totalTermFreq: after.totalTermFreq,
    };
  }
  const merged =
    merging.length > 0 ? await queue.add(() => mergeBlocks(client, indexId, merging, postings, run)) : [];
  const extending = extendTails(client, indexId, extended, queue, onTailsSent);
  // Rendered while Postgres extends the tails; queued behind that UPDATE.
  const index = Number(indexId);
  const copying = queueBinaryCopy(
    client,
    `COPY posting_blocks (index_id, term_id, base_doc_key, last_doc_key, doc_offsets, freqs, norms, max_freq, min_norm,
                         term_doc_freq, term_total_freq)
     FROM STDIN`,
    function* (copy) {
      const r = run(0);
      for (let i = 0; i < terms; i++) {
        const t = order[i]!;
        r.start = postings.start[t]!;
        r.end = postings.start[t + 1]!;
        if (fresh[t]! >= r.end) {
          yield;
          continue;
        }
        const after = totals(t);
        for (let from = fresh[t]!; from < r.end;) {
          const end = blockEnd(r, from);
          writeBlockRow(copy, index, numericIds[t]!, r, from, end, after);
          if (end === r.end)
            tailsAfter[t] = {
              baseDocKey: r.docKeys[from]!,
              lastDocKey: r.docKeys[end - 1]!,
              size: end - from,
              docFreq: after.docFreq,
              totalTermFreq: after.totalTermFreq,
            };
          from = end;
        }
        yield;
      }
      for (const { t, block } of merged) {
        const after = totals(t);
        writeBlock(copy, index, numericIds[t]!, block, after);
        tailsAfter[t] = {
          baseDocKey: block.baseDocKey,
          lastDocKey: block.lastDocKey,
          size: block.offsets.length,
          docFreq: after.docFreq,
          totalTermFreq: after.totalTermFreq,
        };
        yield;
      }
    },
    { queue, turns },
  );
  await Promise.all([extending, copying]);
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
  }>(
    `SELECT u.term_id, t.base_doc_key AS base, t.last_doc_key AS last, t.size, t.term_doc_freq AS df,
            t.term_total_freq AS ttf
     FROM unnest($2::bigint[]) AS u(term_id)
     CROSS JOIN LATERAL (
       SELECT base_doc_key, last_doc_key, cardinality(doc_offsets) AS size, term_doc_freq, term_total_freq
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
        docFreq: r.df,
        totalTermFreq: Number(r.ttf),
      },
    ]),
  );
}

/** One UPDATE for every tail (term id order, as `appendPostings` adds them), each a primary-key probe. */
function extendTails(
  client: PoolClient,
  indexId: string,
  tails: TailAppends,
  queue: StatementQueue,
  onSent?: () => void,
): Promise<unknown> {
  if (tails.size === 0) {
    onSent?.();
    return Promise.resolve();
  }
  // One primary-key probe per tail; planned freely, the join hashed every block of the index.
  return withNestedLoops(
    client,
    () => {
      const sent = client.query(
        `UPDATE posting_blocks b
     SET last_doc_key = u.last, doc_offsets = b.doc_offsets || a.o[u.s:u.e], freqs = b.freqs || a.f[u.s:u.e],
         norms = b.norms || a.n[u.s:u.e], max_freq = greatest(b.max_freq, u.mf), min_norm = least(b.min_norm, u.mn),
         term_doc_freq = u.df, term_total_freq = u.ttf
     FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::int4[], $6::int4[], $7::int4[], $8::int2[],
                 $12::int4[], $13::int8[])
       AS u(term_id, base, last, s, e, mf, mn, df, ttf),
       (SELECT $9::int4[] AS o, $10::int4[] AS f, $11::int2[] AS n) a
     WHERE b.index_id = $1 AND b.term_id = u.term_id AND b.base_doc_key = u.base`,
        [
          indexId,
          int8ArrayParam(tails.termIds),
          int8ArrayParam(tails.bases),
          int8ArrayParam(tails.lasts),
          int4ArrayParam(tails.from),
          int4ArrayParam(tails.to),
          int4ArrayParam(tails.maxFreqs),
          int2ArrayParam(tails.minNorms),
          int4ArrayParam(tails.offsets),
          int4ArrayParam(tails.freqs),
          int2ArrayParam(tails.norms),
          int4ArrayParam(tails.docFreqs),
          int8ArrayParam(tails.totalTermFreqs),
        ],
      );
      onSent?.();
      return sent;
    },
    queue,
  );
}

/** The merge path: takes out every block from the batch's first key on and returns the merged blocks. */
async function mergeBlocks(
  client: PoolClient,
  indexId: string,
  terms: number[],
  postings: BatchPostings,
  run: (t: number) => PostingRun,
): Promise<{ t: number; block: Block }[]> {
  const termIds = terms.map((t) => postings.termIds[t]!);
  const { rows } = await client.query<{
    term_id: string;
    base_doc_key: string;
    doc_offsets: number[];
    freqs: number[];
    norms: number[];
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
    row.doc_offsets.forEach((offset, i) => list.push([base + offset, row.freqs[i]!, row.norms[i]!]));
  }
  const out: { t: number; block: Block }[] = [];
  for (const { t, list } of merged.values()) {
    list.sort((a, b) => a[0] - b[0]);
    const blocks = buildBlocks({
      docKeys: list.map((p) => p[0]),
      freqs: list.map((p) => p[1]),
      norms: list.map((p) => p[2]),
      start: 0,
      end: list.length,
    });
    for (const block of blocks) out.push({ t, block });
  }
  return out;
}

/**
 * Removes documents from the blocks, set-based: their token streams (doc_tokens, the forward index)
 * give each removed (term, doc, freq); each such posting lives in the first block of its term with
 * base_doc_key <= doc_key (one primary-key probe); every hit block is rewritten without the removed
 * documents, or dropped when nothing is left. The same statement reads each term's totals off its last
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
         SELECT min(b.base_doc_key + u.o) AS base, max(b.base_doc_key + u.o) AS last,
                array_agg(b.base_doc_key + u.o ORDER BY u.o) AS keys, array_agg(u.f ORDER BY u.o) AS freqs,
                array_agg(u.n ORDER BY u.o) AS norms, max(u.f) AS max_freq, min(u.n) AS min_norm
         FROM unnest(b.doc_offsets, b.freqs, b.norms) AS u(o, f, n)
         WHERE b.base_doc_key + u.o <> ALL (h.keys)) k),
     dropped AS (
       DELETE FROM posting_blocks b USING kept k
       WHERE b.index_id = $1 AND b.term_id = k.term_id AND b.base_doc_key = k.old_base AND k.base IS NULL),
     shrunk AS (
       UPDATE posting_blocks b
       SET base_doc_key = k.base, last_doc_key = k.last, freqs = k.freqs, norms = k.norms,
           max_freq = k.max_freq, min_norm = k.min_norm,
           doc_offsets = (SELECT array_agg((x - k.base)::int4 ORDER BY x) FROM unnest(k.keys) AS x)
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
