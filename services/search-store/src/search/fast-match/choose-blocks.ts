import { avgFieldLength, idf, normInverseCache, termScore, termWeight } from '../../query/score/bm25';
import type { MatchNode } from './plan-fast-match';
import type { FieldStats } from './postings-cache';
import { blockContaining, positionIn, type TermBlocks } from './term-blocks';

/** What a plan's terms are known to hold: present fields' statistics, each term's blocks (null: absent). */
export interface PlanBlocks {
  fields: Map<string, FieldStats>;
  /** Keyed `path\u0000term`; every term of the plan. */
  entries: Map<string, TermBlocks | null>;
}

export interface ChooseOptions {
  /** The heap's capacity: from + size (0 for size 0). */
  k: number;
  /** track_total_hits as a number (Infinity: count everything). */
  limit: number;
  minScore: number | undefined;
}

export interface BlockChoice {
  /** Blocks to read next (term key, block index); empty when the blocks read suffice. */
  wanted: { key: string; block: number }[];
  /**
   * Only competitive blocks are read: the plan is a `terms` OR whose matches are known to exceed
   * track_total_hits (its most frequent term alone does), so block-max-top-k.ts collects it with the
   * total reported as `gte` and no block left out can hold a document of the page.
   */
  partial: boolean;
}

const f = Math.fround;
/** canSkip's padding (block-max-top-k.ts): a double sum in another order may round up by this much. */
const pad = (x: number): number => f(x + x * 2 ** -40);

/**
 * The blocks a plan still needs, given those read so far (called again after each read until it
 * answers none). A `terms` node at the root prunes by the block directory:
 * - OR (any term, one distinct term) with more matches than track_total_hits and no min_score: a
 *   sample of the blocks with the highest bounds gives a floor θ of the page's last score (the k-th
 *   best partial score among their documents: every other term's part is ≥ 0); a block whose bound
 *   plus the largest bounds of the other terms' blocks over its doc range stays below θ cannot hold a
 *   document of the page. Of the rest, the terms whose best bounds together stay below θ are
 *   MaxScore's non-essential ones (Turtle & Flood 1995): their blocks are read only where a document
 *   of an essential term could still reach θ with them (Ding & Suel's block-max idea applied to
 *   what is read, not only to what is scored).
 * - AND (every term): the rarest term's blocks, and of the others only the blocks holding one of its
 *   documents (a match holds the rarest term); scores and totals stay exact.
 * Anything else reads every block of every term.
 */
export function chooseBlocks(root: MatchNode, data: PlanBlocks, options: ChooseOptions): BlockChoice {
  if (root.kind === 'terms') {
    const choice = chooseTerms(root, data, options);
    if (choice) return choice;
  }
  const wanted: BlockChoice['wanted'] = [];
  for (const [key, entry] of data.entries) if (entry) missing(key, entry, wanted);
  return { wanted, partial: false };
}

function missing(key: string, entry: TermBlocks, wanted: BlockChoice['wanted']): void {
  if (entry.loaded === entry.base.length) return;
  for (let b = 0; b < entry.base.length; b++) if (!entry.contents[b]) wanted.push({ key, block: b });
}

interface Clause {
  key: string;
  entry: TermBlocks;
  weight: number;
  count: number;
  /** Each block's bound on the clause's score (times its multiplicity). */
  bounds: Float64Array;
  max: number;
}

function chooseTerms(
  node: Extract<MatchNode, { kind: 'terms' }>,
  data: PlanBlocks,
  options: ChooseOptions,
): BlockChoice | undefined {
  const field = data.fields.get(node.path);
  if (!field) return { wanted: [], partial: false };
  const multiplicity = new Map<string, number>();
  for (const term of node.terms) {
    const key = `${node.path}\u0000${term}`;
    if (data.entries.get(key)) multiplicity.set(key, (multiplicity.get(key) ?? 0) + 1);
  }
  let present = 0;
  for (const m of multiplicity.values()) present += m;
  // termClauses: nothing can match.
  if (present < node.required || present === 0) return { wanted: [], partial: false };
  const normInverse = Float32Array.from(normInverseCache(avgFieldLength(field)));
  const clauses: Clause[] = [];
  for (const [key, count] of multiplicity) {
    const entry = data.entries.get(key)!;
    clauses.push({
      key,
      entry,
      weight: termWeight(node.boost, idf(entry.docFreq, field.docCount)),
      count,
      bounds: new Float64Array(0),
      max: 0,
    });
  }
  if (node.required === present && clauses.length > 1) return chooseAnd(clauses, normInverse, options);
  const or = node.required === 1 || clauses.length === 1;
  if (
    !or ||
    options.limit === Infinity ||
    options.minScore !== undefined ||
    !(Math.max(...clauses.map((c) => c.entry.docFreq)) > options.limit) ||
    clauses.some((c) => !(c.weight >= 0) || !Number.isFinite(c.weight))
  )
    return undefined;
  return chooseOr(clauses, normInverse, options.k);
}

/**
 * The rarest term's blocks, then the others' blocks that hold one of its documents. When the rarest
 * term alone has more documents than track_total_hits (and no min_score): its blocks in doc order
 * until the matches among them exceed the limit (the total is then `gte`), their k-th best score a
 * floor θ; of the rest, only its blocks whose bound with the other terms' overlapping bounds reaches θ.
 */
function chooseAnd(clauses: Clause[], normInverse: Float32Array, options: ChooseOptions): BlockChoice {
  let lead = clauses[0]!;
  for (const c of clauses) if (c.entry.docFreq < lead.entry.docFreq) lead = c;
  const wanted: BlockChoice['wanted'] = [];
  const lazy =
    options.limit !== Infinity &&
    options.minScore === undefined &&
    lead.entry.docFreq > options.limit &&
    clauses.every((c) => c.weight >= 0 && Number.isFinite(c.weight));
  if (!lazy) {
    missing(lead.key, lead.entry, wanted);
    if (wanted.length === 0) probes(clauses, lead, () => true, wanted);
    return { wanted, partial: false };
  }
  const { contents } = lead.entry;
  const n = contents.length;
  // The prefix: read in batches of about the blocks the limit needs, their probes after them.
  let prefix = 0;
  let count = 0;
  const scores: number[] = [];
  while (prefix < n && count <= options.limit) {
    if (!contents[prefix]) {
      const batch = Math.ceil((options.limit + 1 - count) / 128) + 4;
      for (let b = prefix; b < n && wanted.length < batch; b++)
        if (!contents[b]) wanted.push({ key: lead.key, block: b });
      return { wanted, partial: false };
    }
    const from = prefix;
    while (prefix < n && contents[prefix]) prefix++;
    probes(clauses, lead, (b) => b >= from && b < prefix, wanted);
    if (wanted.length > 0) return { wanted, partial: false };
    for (let b = from; b < prefix && count <= options.limit; b++) {
      documents: for (const d of contents[b]!.docs) {
        let sum = 0;
        for (const c of clauses) {
          const s = scoreOf(c, normInverse, d);
          if (!(s > 0) && positionOf(c, d) < 0) continue documents;
          sum += s;
        }
        count++;
        scores.push(f(sum));
      }
    }
  }
  // Every block read: the answer is exact.
  if (count <= options.limit) return { wanted, partial: false };
  const k = options.k;
  let theta = Infinity;
  if (k > 0) {
    scores.sort((a, b) => b - a);
    theta = scores.length >= k ? scores[k - 1]! : -Infinity;
  }
  boundBlocks(clauses, normInverse);
  const upper = upperBounds(clauses)[clauses.indexOf(lead)]!;
  const needed = (b: number): boolean => b >= prefix && pad(upper[b]!) >= theta;
  for (let b = prefix; b < n; b++) if (!contents[b] && needed(b)) wanted.push({ key: lead.key, block: b });
  if (wanted.length === 0) probes(clauses, lead, needed, wanted);
  return { wanted, partial: true };
}

/** Of every term but the lead, the blocks holding a document of the lead's read blocks `which`. */
function probes(
  clauses: Clause[],
  lead: Clause,
  which: (b: number) => boolean,
  wanted: BlockChoice['wanted'],
): void {
  for (const c of clauses) {
    if (c === lead) continue;
    const { base, last, contents } = c.entry;
    let j = 0;
    lead.entry.contents.forEach((block, b) => {
      if (!block || !which(b)) return;
      for (const d of block.docs) {
        while (j < base.length && last[j]! < d) j++;
        if (j === base.length) return;
        if (base[j]! <= d && !contents[j]) {
          wanted.push({ key: c.key, block: j });
          j++;
        }
      }
    });
  }
}

/** Whether the clause's read block holding d has it: its position, or -1. */
function positionOf(c: Clause, d: number): number {
  const j = blockContaining(c.entry, d);
  const block = j < 0 ? undefined : c.entry.contents[j];
  return block ? positionIn(block.docs, d) : -1;
}

/** Each block's bound on a clause's score: termScore at max_freq and the best normInverse ≥ min_norm. */
function boundBlocks(clauses: Clause[], normInverse: Float32Array): void {
  // The largest normInverse over the norm bytes ≥ x (blockBounds in block-max-top-k.ts).
  const best = new Float64Array(normInverse.length);
  for (let x = normInverse.length - 1, max = -Infinity; x >= 0; x--) {
    max = Math.max(max, normInverse[x]!);
    best[x] = max;
  }
  for (const c of clauses) {
    const { maxFreq, minNorm } = c.entry;
    c.bounds = new Float64Array(maxFreq.length);
    c.max = 0;
    for (let b = 0; b < maxFreq.length; b++) {
      c.bounds[b] = c.count * termScore(c.weight, maxFreq[b]!, best[minNorm[b]!]!);
      if (c.bounds[b]! > c.max) c.max = c.bounds[b]!;
    }
  }
}

function chooseOr(clauses: Clause[], normInverse: Float32Array, k: number): BlockChoice {
  if (k === 0) return { wanted: [], partial: true };
  boundBlocks(clauses, normInverse);
  const upper = upperBounds(clauses);
  const wanted: BlockChoice['wanted'] = [];
  // θ: a floor of the page's last score, from the sample of the highest upper bounds.
  let theta = -Infinity;
  for (let size = 4 + Math.ceil(k / 32); ; size *= 2) {
    const sample = topBlocks(clauses, upper, size);
    for (const [i, b] of sample)
      if (!clauses[i]!.entry.contents[b]) wanted.push({ key: clauses[i]!.key, block: b });
    if (wanted.length > 0) return { wanted, partial: true };
    const partials = samplePartials(clauses, normInverse, sample);
    if (partials.length >= k) {
      partials.sort((a, b) => b - a);
      theta = partials[k - 1]!;
      break;
    }
    // Fewer than k documents in the sample (small blocks): a larger one, until it holds every block.
    if (sample.length < size) break;
  }
  // MaxScore's split: the terms whose best bounds together stay below θ are non-essential.
  const order = clauses.map((_, i) => i).sort((a, b) => clauses[a]!.max - clauses[b]!.max);
  const essential = new Uint8Array(clauses.length).fill(1);
  let sum = 0;
  for (const i of order) {
    if (!(pad(sum + clauses[i]!.max) < theta)) break;
    sum += clauses[i]!.max;
    essential[i] = 0;
  }
  clauses.forEach((c, i) => {
    if (!essential[i]) return;
    for (let b = 0; b < c.bounds.length; b++)
      if (!c.entry.contents[b] && pad(upper[i]![b]!) >= theta) wanted.push({ key: c.key, block: b });
  });
  if (wanted.length > 0 || essential.every((e) => e === 1)) return { wanted, partial: true };
  // The non-essential blocks holding a document of an essential one that could still reach θ.
  const seen = new Set<number>();
  const taken = new Set<string>();
  const hits: [number, number][] = [];
  clauses.forEach((c, i) => {
    if (!essential[i]) return;
    c.entry.contents.forEach((block, b) => {
      if (!block || pad(upper[i]![b]!) < theta) return;
      candidates: for (const d of block.docs) {
        if (seen.has(d)) continue;
        seen.add(d);
        let partial = 0;
        for (let e = 0; e < clauses.length; e++) {
          if (!essential[e]) continue;
          const s = scoreOf(clauses[e]!, normInverse, d);
          // Its block was not needed: the document cannot reach θ.
          if (s < 0) continue candidates;
          partial += s;
        }
        let bound = partial;
        hits.length = 0;
        for (let n = 0; n < clauses.length; n++) {
          if (essential[n]) continue;
          const j = blockContaining(clauses[n]!.entry, d);
          if (j < 0) continue;
          bound += clauses[n]!.bounds[j]!;
          hits.push([n, j]);
        }
        if (pad(bound) < theta) continue;
        for (const [n, j] of hits) {
          const at = `${n}:${j}`;
          if (clauses[n]!.entry.contents[j] || taken.has(at)) continue;
          taken.add(at);
          wanted.push({ key: clauses[n]!.key, block: j });
        }
      }
    });
  });
  return { wanted, partial: true };
}

/**
 * A clause's exact score in document d (score-match-plan.ts's float32 steps, times its multiplicity),
 * 0 when d is not in its postings, -1 when the block that may hold d has not been read.
 */
function scoreOf(c: Clause, normInverse: Float32Array, d: number): number {
  const j = blockContaining(c.entry, d);
  if (j < 0) return 0;
  const block = c.entry.contents[j];
  if (!block) return -1;
  const p = positionIn(block.docs, d);
  if (p < 0) return 0;
  const w = c.weight;
  const ts = f(w - f(w / f(1 + f(block.freqs[p]! * normInverse[block.norms[p]!]!))));
  let s = 0;
  for (let r = 0; r < c.count; r++) s += ts;
  return s;
}

/**
 * Per block, its bound plus, for every other term, the largest bound of its blocks overlapping the
 * block's doc range: no document of the block scores more. Blocks of a term are disjoint and
 * ascending, so a sweep finds the overlaps (at most n + m − 1 pairs for two terms).
 */
function upperBounds(clauses: Clause[]): Float64Array[] {
  return clauses.map((c, i) => {
    const out = Float64Array.from(c.bounds);
    clauses.forEach((o, x) => {
      if (x === i) return;
      let j = 0;
      for (let b = 0; b < out.length; b++) {
        const lo = c.entry.base[b]!;
        const hi = c.entry.last[b]!;
        while (j < o.entry.base.length && o.entry.last[j]! < lo) j++;
        let max = 0;
        for (let y = j; y < o.entry.base.length && o.entry.base[y]! <= hi; y++)
          if (o.bounds[y]! > max) max = o.bounds[y]!;
        out[b] = out[b]! + max;
      }
    });
    return out;
  });
}

/** The `size` blocks of highest upper bound, as [clause, block]. */
function topBlocks(clauses: Clause[], upper: Float64Array[], size: number): [number, number][] {
  const top: [number, number, number][] = [];
  clauses.forEach((_, i) => {
    const u = upper[i]!;
    for (let b = 0; b < u.length; b++) {
      if (top.length === size && u[b]! <= top[top.length - 1]![2]) continue;
      let at = top.length;
      while (at > 0 && top[at - 1]![2] < u[b]!) at--;
      top.splice(at, 0, [i, b, u[b]!]);
      if (top.length > size) top.pop();
    }
  });
  return top.map(([i, b]) => [i, b]);
}

/**
 * Each document of the sampled blocks once, with its score over the blocks read (a term whose block
 * holding it is unread adds nothing): at most its true score, since every term's part is ≥ 0 and
 * a double sum of a few float32 values is exact.
 */
function samplePartials(clauses: Clause[], normInverse: Float32Array, sample: [number, number][]): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  for (const [i, b] of sample) {
    for (const d of clauses[i]!.entry.contents[b]!.docs) {
      if (seen.has(d)) continue;
      seen.add(d);
      let sum = 0;
      for (const c of clauses) sum += Math.max(0, scoreOf(c, normInverse, d));
      out.push(f(sum));
    }
  }
  return out;
}
