import type { CustomTypesConfig, Pool, PoolClient } from 'pg';
import { forEachPeakPair } from '../../index/block-peak-pairs';
import { termScore } from '../../query/score/bm25';
import { joinTermBlocks, termBlockBounds } from '../../index/postings-reader';
import type { LoadedPostings } from './load-match-postings';
import { STATS, STATS_ROWS } from './load-match-postings';
import type { FastMatchPlan, MatchNode } from './plan-fast-match';
import { cachedListBytes, termKey, type TermVersion } from './postings-cache';
import { PgArrayError } from './parse-pg-int-array';
import { emptyPostings, readBlocks, type PackedBlock } from './read-packed-blocks';
import { termClauses, type MatchPostings, type TermPostings } from './score-match-plan';

const f = Math.fround;

/**
 * From this many postings a one-term top-k search reads only the blocks that can hold its top k
 * (loadTopTermPostings). Below it, the whole list costs less than the second round trip.
 */
export const TOP_TERM_POSTINGS = 20_000;

/** Up to this many hits (from + size) a one-term search reads only the promising blocks. */
export const TOP_TERM_MAX_K = 100;

/**
 * Statement 1: the field statistics and the term, then for a term below `$5` postings its blocks
 * whole (kind 2, as load-match-postings.ts sends them), and for a longer one each block's bounds
 * only, no postings: one row (kind 3, term_id, the bytes in the offsets column) holding per block in
 * doc order its base_doc_key (int8), max_freq (int4), min_norm (int2), the length of its peaks
 * (int2, -1 for NULL) and the peaks. One row, not one per block: a common word at 1M documents has
 * 3,000 blocks, and node-pg's parsing of that many rows cost more than the postings it saved.
 */
const PEAKS_SQL = `WITH ${STATS}
  ${STATS_ROWS}
  UNION ALL
  SELECT 2, NULL, NULL, b.term_id, b.base_doc_key, b.doc_offsets, b.freqs, b.norms, NULL, b.max_freq, b.min_norm
  FROM t ${joinTermBlocks('b', '$1', 't.term_id')}
  WHERE t.doc_freq < $5
  UNION ALL
  SELECT 3, NULL, NULL, t.term_id, NULL,
         ${termBlockBounds('$1', 't.term_id')},
         NULL, NULL, NULL, NULL, NULL
  FROM t
  WHERE t.doc_freq >= $5`;

/**
 * Statement 2: the term's version now (kind 1) and the chosen blocks (kind 2), by base_doc_key. Another
 * snapshot than statement 1's: the blocks are kept only when the version is the one statement 1 read.
 */
const BLOCKS_SQL = `WITH ${STATS}
  SELECT 1 AS kind, t.version, NULL::int8 AS base, NULL::bytea AS offsets, NULL::bytea AS freqs,
         NULL::bytea AS norms, NULL::int4 AS max_freq, NULL::int2 AS min_norm
  FROM t
  UNION ALL
  SELECT 2, NULL, b.base_doc_key, b.doc_offsets, b.freqs, b.norms, b.max_freq, b.min_norm
  FROM t ${joinTermBlocks('b', '$1', 't.term_id')}
  WHERE b.base_doc_key = ANY($5::int8[])`;

const RAW = { getTypeParser: () => (value: string) => value } as unknown as CustomTypesConfig;

type RawRow = (string | null)[];

/**
 * The plan's root when the plan is a one-term BM25 match (`match` of one word, with either
 * operator, or the word repeated with operator or), else undefined: what loadTopTermPostings can
 * read in part.
 */
export function topTermOf(plan: FastMatchPlan): Extract<MatchNode, { kind: 'terms' }> | undefined {
  const root = plan.root;
  if (root.kind !== 'terms' || plan.terms.length !== 1 || plan.fields.length !== 1) return undefined;
  // Any one of the terms (required 1): the matches are the list's documents, counted from docFreq
  // before scoring (execute-fast-search.ts countedUpFront), so a list read in part counts them all.
  if (root.required !== 1 || root.terms.some((t) => t !== root.terms[0])) return undefined;
  return root;
}

/** A block's bounds as statement 1 sent them. */
interface BlockBound {
  base: number;
  bound: number;
  /** The bound is a posting's score (the block's peaks are known), not only an upper bound. */
  exact: boolean;
}

/**
 * The postings of a one-term plan (topTermOf) for its top `k` by score: when the term has at least
 * `minPostings`, only the blocks that can hold a top-k document are read. Statement 1 sends each
 * block's peaks (the blocks' peaks column, migration 0032: the Pareto front of its (freq, norm) pairs,
 * index/block-peak-pairs.ts); a block's bound is the best of its pairs' scores, computed with the
 * scorer's own float32 steps (bm25.ts termScore), so it is the score of a posting of the
 * block, and θ, the k-th highest bound, is met by k documents at least. Statement 2 sends the blocks
 * whose bound reaches θ, a block of unknown peaks (NULL) by its upper bound BM25(max_freq, min_norm),
 * except the blocks at θ after k documents at θ or above are certain (promisingBlocks): on prose many
 * blocks hold a one-word field, all at the same best score, and ties rank by doc order. Before the
 * list is answered, every unread block must rank after the k-th hit read: its bound strictly below
 * that hit's score, or equal to it and the block's documents all after the hit's.
 * The list answered keeps the term's docFreq (totals, idf) but holds only the blocks read:
 * postings-cache.ts keeps no list shorter than its docFreq. Anything unexpected (a version changed
 * between the statements, too few known peaks, most blocks promising, the check failing) reads the
 * whole list the existing way, `readAll`. So does a list the postings cache has `room` (bytes) for.
 */
export async function loadTopTermPostings(
  db: Pool | PoolClient,
  plan: FastMatchPlan,
  k: number,
  readAll: () => Promise<LoadedPostings>,
  minPostings = TOP_TERM_POSTINGS,
  room = 0,
): Promise<LoadedPostings> {
  const node = topTermOf(plan);
  if (!node || !(k >= 1)) return readAll();
  const values = [plan.reader.indexId, plan.fields, [node.path], [node.terms[0]!]];
  const { rows } = await db.query<RawRow>({
    name: 'fast-match-top-term',
    text: PEAKS_SQL,
    values: [...values, Math.min(Math.max(1, minPostings), 2 ** 31 - 1)],
    rowMode: 'array',
    types: RAW,
  });
  const fields: MatchPostings['fields'] = new Map();
  const versions = new Map<string, TermVersion>();
  const key = termKey(node.path, node.terms[0]!);
  let docFreq = 0;
  const whole: PackedBlock[] = [];
  let packedPeaks: string | undefined;
  for (const row of rows) {
    const kind = Number(row[0]);
    if (kind === 0) fields.set(row[1]!, { docCount: Number(row[3]), sumTotalTermFreq: Number(row[4]) });
    else if (kind === 1) {
      docFreq = Number(row[4]);
      versions.set(key, { termId: row[3]!, version: row[8]! });
    } else if (kind === 2)
      whole.push({
        base: Number(row[4]),
        offsets: row[5]!,
        freqs: row[6]!,
        norms: row[7]!,
        maxFreq: Number(row[9]),
        minNorm: Number(row[10]),
      });
    else packedPeaks = row[5] ?? '\\x';
  }
  const terms: MatchPostings['terms'] = new Map();
  const version = versions.get(key);
  if (!version) return { fields, terms, versions };
  if (packedPeaks === undefined) {
    terms.set(key, readBlocks(docFreq, whole));
    return { fields, terms, versions };
  }
  // The postings cache can keep the whole list without evicting: read it whole once, and the next
  // searches for the term are answered from the cache in one statement (at 100k documents the cache
  // holds every list the bench reads; at 1M it is full after a few searches and room is 0).
  if (cachedListBytes(docFreq) <= room) return readAll();
  // The scorer's weight, multiplicity and length table for this term (only its docFreq is read).
  const clauses = termClauses(node, { fields, terms: new Map([[key, emptyPostings(docFreq, 0, 0)]]) });
  if (!clauses) return readAll();
  const w = clauses.weights[0]!;
  const m = clauses.counts[0]!;
  const ni = clauses.normInverse;
  if (!(w >= 0) || !Number.isFinite(w)) return readAll();
  const score = (freq: number, norm: number): number => {
    const ts = termScore(w, freq, ni[norm]!);
    let sum = 0;
    for (let r = 0; r < m; r++) sum += ts;
    return f(sum);
  };
  const bounds = blockBounds(hexBytes(packedPeaks), score);
  const theta = kthHighest(
    bounds.filter((b) => b.exact).map((b) => b.bound),
    k,
  );
  // Fewer than k blocks with known peaks: nothing proves k documents reach any bar.
  if (theta === undefined) return readAll();
  const chosen = promisingBlocks(bounds, theta, k);
  // Most of the list is promising: one COPY of all of it costs less than blocks picked by key.
  if (chosen.length * 2 > bounds.length) return readAll();
  const sent = await db.query<RawRow>({
    name: 'fast-match-top-term-blocks',
    text: BLOCKS_SQL,
    values: [...values, chosen.map((b) => b.base)],
    rowMode: 'array',
    types: RAW,
  });
  const blocks: PackedBlock[] = [];
  let now: string | undefined;
  for (const row of sent.rows) {
    if (Number(row[0]) === 1) now = row[1]!;
    else
      blocks.push({
        base: Number(row[2]),
        offsets: row[3]!,
        freqs: row[4]!,
        norms: row[5]!,
        maxFreq: Number(row[6]),
        minNorm: Number(row[7]),
      });
  }
  if (now !== version.version || blocks.length !== chosen.length) return readAll();
  const list = readBlocks(docFreq, blocks);
  const kth = kthHit(list, score, k);
  const read = new Set(chosen.map((b) => b.base));
  // No unread block can hold a document ranked before the k-th hit read (score, then doc order).
  for (const b of bounds)
    if (!read.has(b.base) && !(b.bound < kth.score || (b.bound === kth.score && b.base > kth.doc)))
      return readAll();
  terms.set(key, list);
  return { fields, terms, versions };
}

/** The k-th highest of `values` (ties counted each), undefined when there are fewer than k. */
function kthHighest(values: number[], k: number): number | undefined {
  if (values.length < k) return undefined;
  return Float64Array.from(values).sort()[values.length - k];
}

/**
 * The blocks that can hold a top-k document, in doc order: every block bounded above θ, and of the
 * blocks bounded at θ only those before the point where, with the blocks above θ whose bound is a
 * known posting's score, k documents at θ or above are certain. Ties rank by doc order, so a block at
 * θ after that point holds no document ranked before those k (a block of unknown peaks bounded at θ
 * proves nothing and does not move the point).
 */
function promisingBlocks(bounds: BlockBound[], theta: number, k: number): BlockBound[] {
  let certain = 0;
  for (const b of bounds) if (b.exact && b.bound > theta) certain++;
  const out: BlockBound[] = [];
  for (const b of bounds) {
    if (b.bound > theta) out.push(b);
    else if (b.bound === theta && certain < k) {
      out.push(b);
      if (b.exact) certain++;
    }
  }
  return out;
}

/** The k-th hit among a list's postings, by score then doc order ({-Infinity, …} when it holds fewer). */
function kthHit(
  list: TermPostings,
  score: (freq: number, norm: number) => number,
  k: number,
): { score: number; doc: number } {
  const n = list.docs.length;
  if (n < k) return { score: -Infinity, doc: Infinity };
  const scores = new Float64Array(n);
  const order = new Int32Array(n);
  for (let p = 0; p < n; p++) {
    scores[p] = score(list.freqs[p]!, list.norms[p]!);
    order[p] = p;
  }
  // docs ascend with p, so the position breaks ties in doc order.
  order.sort((a, b) => scores[b]! - scores[a]! || a - b);
  const at = order[k - 1]!;
  return { score: scores[at]!, doc: list.docs[at]! };
}

/** Statement 1's packed bounds (PEAKS_SQL) as each block's bound: its best pair's score. */
function blockBounds(data: Buffer, score: (freq: number, norm: number) => number): BlockBound[] {
  const out: BlockBound[] = [];
  let bound = -Infinity;
  const visit = (freq: number, norm: number): void => {
    const s = score(freq, norm);
    if (s > bound) bound = s;
  };
  for (let p = 0; p < data.length;) {
    if (p + 16 > data.length) throw new PgArrayError('block bounds cut short');
    const base = Number(data.readBigInt64BE(p));
    const maxFreq = data.readInt32BE(p + 8);
    const minNorm = data.readInt16BE(p + 12);
    const length = data.readInt16BE(p + 14);
    p += 16;
    bound = -Infinity;
    if (length < 0) visit(maxFreq, minNorm);
    else {
      if (p + length > data.length) throw new PgArrayError('block peaks cut short');
      forEachPeakPair(data.subarray(p, p + length), maxFreq, minNorm, visit);
      p += length;
    }
    out.push({ base, bound, exact: length >= 0 });
  }
  return out;
}

/** A bytea column's hex text (`\x…`) as bytes. */
function hexBytes(text: string): Buffer {
  return Buffer.from(text.slice(2), 'hex');
}
