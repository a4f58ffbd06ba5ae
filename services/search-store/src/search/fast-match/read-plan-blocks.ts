import type { Pool, PoolClient } from 'pg';
import { chooseBlocks, type ChooseOptions, type PlanBlocks } from './choose-blocks';
import { loadMatchPostings } from './load-match-postings';
import type { FastMatchPlan } from './plan-fast-match';
import { PostingsCache, termKey, type TermVersion } from './postings-cache';
import { readBlocks, readDirectories, type BlockRead } from './read-term-blocks';
import { assembleTerm, type TermBlocks } from './term-blocks';
import type { MatchPostings } from './score-match-plan';

/** A plan's postings as scored, the versions they were read at, and whether only competitive blocks were read. */
export interface PlanRead {
  postings: MatchPostings;
  versions: Map<string, TermVersion>;
  /** choose-blocks.ts: the total is known to exceed track_total_hits; collect with block-max-top-k.ts. */
  partial: boolean;
}

/** Rounds of reading before a plan whose terms keep changing is read whole in one statement. */
const MAX_ATTEMPTS = 4;

/**
 * The plan answered from the cache alone (no statement): every field statistic and directory known and
 * every block chooseBlocks wants read. The caller still has the versions checked (check-cached-plan.ts).
 */
export function planFromCache(
  cache: PostingsCache,
  plan: FastMatchPlan,
  options: ChooseOptions,
): PlanRead | undefined {
  const known = fromCache(cache, plan);
  if (known.unknown.length > 0 || known.fieldsUnknown) return undefined;
  const choice = chooseBlocks(plan.root, known.data, options);
  if (choice.wanted.length > 0) return undefined;
  return assemble(known.data, choice.partial);
}

/**
 * Reads what the plan needs that the cache lacks: the directories of unknown terms (one statement),
 * then the blocks chooseBlocks asks for, round after round, each statement checking that every version
 * and statistic used so far still holds (else what changed is dropped and read again). The answer is
 * the postings of the last statement's snapshot. At least one statement runs, so a plan answered from
 * the cache is checked too.
 */
export async function readPlanBlocks(
  db: Pool | PoolClient,
  cache: PostingsCache,
  plan: FastMatchPlan,
  options: ChooseOptions,
): Promise<PlanRead> {
  const index = plan.reader.indexId;
  attempts: for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let known = fromCache(cache, plan)!;
    let checked = false;
    if (known.unknown.length > 0 || known.fieldsUnknown) {
      const knownIds: string[] = [];
      for (const entry of known.data.entries.values()) if (entry) knownIds.push(entry.termId);
      const read = await readDirectories(db, plan, knownIds);
      for (const [path, stats] of read.fields) cache.setField(index, path, stats);
      for (const path of plan.fields) if (!read.fields.has(path)) cache.setField(index, path, null);
      for (const key of known.unknown) {
        const { path, term } = splitKey(key);
        cache.setTerm(index, path, term, fromRead(read, key));
      }
      const after = fromCache(cache, plan);
      known = after.unknown.length > 0 || after.fieldsUnknown ? withRead(plan, after.data, read) : after;
      if (!agrees(plan, known.data, read)) {
        forgetChanged(cache, plan, known.data, read);
        continue;
      }
      checked = true;
    }
    for (;;) {
      const choice = chooseBlocks(plan.root, known.data, options);
      if (choice.wanted.length === 0 && checked) return assemble(known.data, choice.partial);
      const wanted = choice.wanted.map(({ key, block }) => ({
        key,
        block,
        termId: known.data.entries.get(key)!.termId,
        base: known.data.entries.get(key)!.base[block]!,
      }));
      const read = await readBlocks(db, plan, wanted);
      if (!agrees(plan, known.data, read)) {
        forgetChanged(cache, plan, known.data, read);
        continue attempts;
      }
      checked = true;
      for (const w of wanted) {
        const c = read.blocks.get(w.termId)?.get(w.base);
        const entry = known.data.entries.get(w.key)!;
        // A block the directory listed and the same version lacks cannot be: read again.
        if (!c) {
          forgetChanged(cache, plan, known.data, read, w.key);
          continue attempts;
        }
        const { path, term } = splitKey(w.key);
        cache.addBlock(index, path, term, entry, w.block, c);
      }
      if (choice.wanted.length === 0) return assemble(known.data, choice.partial);
    }
  }
  // Writes kept changing the plan's terms between statements: one statement, one snapshot, every block.
  const whole = await loadMatchPostings(db, plan, true);
  return { postings: whole, versions: whole.versions, partial: false };
}

interface Known {
  data: PlanBlocks;
  /** Term keys the cache knows nothing of. */
  unknown: string[];
  fieldsUnknown: boolean;
}

function fromCache(cache: PostingsCache, plan: FastMatchPlan): Known {
  const index = plan.reader.indexId;
  const data: PlanBlocks = { fields: new Map(), entries: new Map() };
  let fieldsUnknown = false;
  for (const path of plan.fields) {
    const stats = cache.field(index, path);
    if (stats === undefined) fieldsUnknown = true;
    else if (stats) data.fields.set(path, stats);
  }
  const unknown: string[] = [];
  for (const { path, term } of plan.terms) {
    const key = termKey(path, term);
    const entry = cache.term(index, path, term);
    if (entry === undefined) unknown.push(key);
    else data.entries.set(key, entry);
  }
  return { data, unknown, fieldsUnknown };
}

/** When the cache keeps nothing (disabled, or the entries evicted at once): the read itself. */
function withRead(plan: FastMatchPlan, data: PlanBlocks, read: BlockRead): Known {
  const fields = new Map(read.fields);
  const entries = new Map(data.entries);
  for (const { path, term } of plan.terms) {
    const key = termKey(path, term);
    if (!entries.has(key)) entries.set(key, fromRead(read, key));
  }
  return { data: { fields, entries }, unknown: [], fieldsUnknown: false };
}

function fromRead(read: BlockRead, key: string): TermBlocks | null {
  const seen = read.terms.get(key);
  if (!seen) return null;
  const dir = read.directories.get(seen.termId);
  const n = dir ? dir.bases.length : 0;
  const entry: TermBlocks = {
    termId: seen.termId,
    version: seen.version,
    docFreq: seen.docFreq,
    base: dir?.bases ?? new Float64Array(0),
    last: dir?.lasts ?? new Float64Array(0),
    maxFreq: dir?.maxFreq ?? new Int32Array(0),
    minNorm: dir?.minNorm ?? new Uint8Array(0),
    contents: new Array(n).fill(undefined),
    loaded: 0,
  };
  const blocks = read.blocks.get(seen.termId);
  if (blocks && dir) {
    for (let b = 0; b < n; b++) {
      const c = blocks.get(dir.bases[b]!);
      if (c) {
        entry.contents[b] = c;
        entry.loaded++;
      }
    }
  }
  return entry;
}

/** Whether a statement saw the statistics and term versions the plan's data was read at. */
function agrees(plan: FastMatchPlan, data: PlanBlocks, read: BlockRead): boolean {
  for (const path of plan.fields) {
    const a = data.fields.get(path);
    const b = read.fields.get(path);
    if (!a !== !b) return false;
    if (a && b && (a.docCount !== b.docCount || a.sumTotalTermFreq !== b.sumTotalTermFreq)) return false;
  }
  for (const [key, entry] of data.entries) {
    const seen = read.terms.get(key);
    if (!entry !== !seen) return false;
    if (entry && seen && (entry.termId !== seen.termId || entry.version !== seen.version)) return false;
  }
  return true;
}

/** Drops from the cache what a statement found changed (and `also`), so the next round reads it. */
function forgetChanged(
  cache: PostingsCache,
  plan: FastMatchPlan,
  data: PlanBlocks,
  read: BlockRead,
  also?: string,
): void {
  const index = plan.reader.indexId;
  for (const [path, stats] of read.fields) cache.setField(index, path, stats);
  for (const path of plan.fields) if (!read.fields.has(path)) cache.setField(index, path, null);
  for (const [key, entry] of data.entries) {
    const seen = read.terms.get(key);
    if (key === also || !entry !== !seen || (entry && seen && entry.version !== seen.version)) {
      const { path, term } = splitKey(key);
      cache.forget(index, path, term);
    }
  }
}

function assemble(data: PlanBlocks, partial: boolean): PlanRead {
  const terms: MatchPostings['terms'] = new Map();
  const versions = new Map<string, TermVersion>();
  for (const [key, entry] of data.entries) {
    if (!entry) continue;
    terms.set(key, assembleTerm(entry));
    versions.set(key, { termId: entry.termId, version: entry.version });
  }
  return { postings: { fields: data.fields, terms }, versions, partial };
}

function splitKey(key: string): { path: string; term: string } {
  const at = key.indexOf('\u0000');
  return { path: key.slice(0, at), term: key.slice(at + 1) };
}
