import type { Pool, PoolClient } from 'pg';
import { buildHits, type HitRow } from '../hits/build-hits';
import { checkResultWindow, searchResponse, type SearchResponse } from '../execute-search';
import type { IndexReader } from '../../query/index-reader';
import type { SearchRequest } from '../../query/parse/search-request';
import { loadMatchPostings } from './load-match-postings';
import { loadTopTermPostings, topTermOf, TOP_TERM_MAX_K } from './load-top-term-postings';
import { isFastMatchRequest, planFastMatch, type FastMatchPlan, type MatchNode } from './plan-fast-match';
import { checkCachedPlan, type CatalogFold } from './check-cached-plan';
import { termKey, type PostingsCache } from './postings-cache';
import { scoreMatchPlan, type MatchPostings } from './score-match-plan';
import { TopDocsHeap } from './top-docs-heap';
import { collectTopTerms, type TopCollector } from './block-max-top-k';
import { FuzzyExpansions } from './fuzzy-expansions';

const f = Math.fround;

/**
 * The fast path for relevance-ordered match, multi_match (best_fields, most_fields) and bool over
 * them: one statement per index reads statistics and postings (one snapshot), Node scores them with
 * the float32 arithmetic of the SQL plans and keeps the top from+size, and one statement fetches the
 * page's documents. Answers undefined when the request needs the SQL path (executeSearch); the answer
 * is otherwise the one executeSearch gives, score for score.
 *
 * With a cache (postings-cache.ts) holding every term of the plans, the scores are computed first and
 * one statement per index checks the statistics and term versions they used while it reads the page:
 * one round trip instead of two, and the same answer (anything changed → the postings are read again).
 */
export async function executeFastSearch(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  started = Date.now(),
  cache?: PostingsCache,
  fold?: CatalogFold,
): Promise<SearchResponse | undefined> {
  // Synchronous unless fuzzy terms must be expanded: the cache branch below sets `fold.taken` before
  // the first await, and after one the caller has loaded the catalog itself (fold dropped).
  const expansions = new FuzzyExpansions();
  let plans = planAll(readers, request, expansions);
  if (plans && expansions.missing > 0) {
    fold = undefined;
    await expansions.load(db);
    plans = planAll(readers, request, expansions);
  }
  if (!plans) return undefined;
  checkResultWindow(readers, request);
  // The SQL path orders ties by index_id, then doc_key.
  const shardOrder = readers
    .map((r, i) => ({ id: BigInt(r.indexId), i }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rank = new Int32Array(readers.length);
  shardOrder.forEach(({ i }, r) => (rank[i] = r));
  const located = (p: RankedDoc) => ({
    indexId: readers[shardOrder[p.shard]!.i]!.indexId,
    docKey: p.doc,
    score: p.score,
  });
  if (cache) {
    const cached = plans.map((plan) => cache.lookup(plan));
    if (cached.every((c) => c !== undefined)) {
      // Before the first await: the caller reads this to know it need not load the catalog itself.
      if (fold) fold.taken = true;
      const ranked = rankPlans(
        plans,
        cached.map((c) => c.postings),
        rank,
        request,
      );
      const page = ranked.page.map(located);
      const checked = await Promise.all(
        plans.map((plan, i) =>
          checkCachedPlan(
            db,
            plan,
            cached[i]!,
            page.filter((p) => p.indexId === plan.reader.indexId),
            i === 0 ? fold : undefined,
          ),
        ),
      );
      if (checked.every((rows) => rows !== undefined)) {
        const byKey = new Map(checked.flat().map((row) => [`${row.index_id}:${row.doc_key}`, row]));
        const rows = page.map((p) => byKey.get(`${p.indexId}:${p.docKey}`)!);
        return respond(db, readers, request, ranked, rows, started);
      }
      // Something changed: read the postings again below, which replaces what the cache holds.
    }
  }
  // The catalog rides along in the page statement (unless the check above read it): the postings
  // statement and the page's are the request's only ones, none in parallel beside them.
  const pageFold = fold && !fold.found ? fold : undefined;
  if (pageFold) pageFold.taken = true;
  // Terms the cache holds are not sent again while their version stands: a search with one new term
  // reads that term's blocks, not every list of the query (the common terms are the long ones).
  const k = request.size === 0 ? 0 : request.from + request.size;
  const postings = await Promise.all(
    plans.map((plan) => {
      const known = cache?.known(plan);
      const readAll = () => loadMatchPostings(db, plan, cache?.enabled, known, cache ? cacheRoom(cache) : 0);
      // A one-term search for a small top k reads only the blocks that can hold it
      // (load-top-term-postings.ts), unless the cache holds the list or every match must be scored.
      const topK = request.minScore === undefined && k >= 1 && k <= TOP_TERM_MAX_K && !known?.size;
      return topK && topTermOf(plan)
        ? loadTopTermPostings(db, plan, k, readAll, undefined, cache ? cacheRoom(cache) : 0)
        : readAll();
    }),
  );
  if (cache) plans.forEach((plan, i) => cache.remember(plan, postings[i]!));
  const ranked = rankPlans(plans, postings, rank, request);
  const rows = await loadPageRows(db, ranked.page.map(located), pageFold);
  return respond(db, readers, request, ranked, rows, started);
}

interface RankedDoc {
  score: number;
  shard: number;
  doc: number;
}

interface Ranked {
  total: number;
  maxScore: number;
  /** The page (from .. from+size) in Elasticsearch's order. */
  page: RankedDoc[];
}

/**
 * Scores every plan over its postings and keeps the top from+size (min_score applied). A plain match
 * or term (a `terms` root) skips the documents that cannot make the page once track_total_hits has
 * been counted (block-max-top-k.ts); anything else scores every match.
 */
function rankPlans(
  plans: FastMatchPlan[],
  postings: MatchPostings[],
  rank: Int32Array,
  request: SearchRequest,
): Ranked {
  const c: TopCollector = {
    heap: new TopDocsHeap(request.size === 0 ? 0 : request.from + request.size),
    shard: 0,
    total: 0,
    limit: totalHitsLimit(request),
    minScore: request.minScore === undefined ? undefined : f(request.minScore),
    maxScore: -Infinity,
    scored: 0,
  };
  // In the tie order (index rank, then doc), which block-max pruning relies on (block-max-top-k.ts).
  const byRank = plans.map((_, i) => i).sort((a, b) => rank[a]! - rank[b]!);
  for (const i of byRank) {
    const plan = plans[i]!;
    c.shard = rank[i]!;
    if (plan.root.kind === 'terms') {
      const upFront = countedUpFront(plan.root, postings[i]!, c);
      if (upFront !== undefined || c.limit !== Infinity) {
        c.counted = upFront !== undefined;
        c.total += upFront ?? 0;
        const done = collectTopTerms(plan.root, postings[i]!, c);
        c.counted = false;
        if (done) continue;
        c.total -= upFront ?? 0;
      }
    }
    const { docs, scores, length } = scoreMatchPlan(plan.root, postings[i]!);
    for (let j = 0; j < length; j++) {
      const s = scores[j]!;
      if (c.minScore !== undefined && !(s >= c.minScore)) continue;
      c.total++;
      if (s > c.maxScore) c.maxScore = s;
      c.heap.offer(s, c.shard, docs[j]!);
    }
  }
  return { total: c.total, maxScore: c.maxScore, page: c.heap.sorted().slice(request.from) };
}

/**
 * The matches of a match of any of its terms (no min_score), counted from its posting lists before
 * scoring: one term, its list's length, exact; several, only when the longest list alone is past
 * track_total_hits (the total is then reported as the limit, relation gte, whatever it is beyond).
 * Pruning can then start at the first document instead of after `limit` of them (block-max-top-k.ts).
 */
function countedUpFront(
  node: Extract<MatchNode, { kind: 'terms' }>,
  data: MatchPostings,
  c: TopCollector,
): number | undefined {
  if (c.minScore !== undefined || node.required !== 1) return undefined;
  const lengths = new Map<string, number>();
  for (const term of node.terms) {
    const list = data.terms.get(termKey(node.path, term));
    // docFreq, not the postings held: a one-term list may hold only its promising blocks
    // (load-top-term-postings.ts); a whole list holds docFreq postings.
    if (list) lengths.set(term, list.docFreq);
  }
  const longest = Math.max(0, ...lengths.values());
  if (lengths.size === 1) return longest;
  return lengths.size > 1 && longest > c.limit ? longest : undefined;
}

/** Bytes the cache takes without evicting, at most what it keeps of one term (postings-cache.ts). */
function cacheRoom(cache: PostingsCache): number {
  return Math.min(cache.maxBytes - cache.size.bytes, cache.maxBytes / 4);
}

/** How far matches must be counted: track_total_hits (ES default 10,000), none when the total is not shown. */
function totalHitsLimit(request: SearchRequest): number {
  if (request.trackTotalHits === true) return Infinity;
  if (request.trackTotalHits === false) return 0;
  return Math.max(0, request.trackTotalHits);
}

async function respond(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  ranked: Ranked,
  rows: HitRow[],
  started: number,
): Promise<SearchResponse> {
  const hits = await buildHits(db, readers, request, rows, { scored: true, now: started });
  return searchResponse(readers, request, {
    total: ranked.total,
    maxScore: ranked.total > 0 ? ranked.maxScore : null,
    hits,
    scored: true,
    started,
  });
}

/** `_count` on the fast path: the matches of every index, counted without fetching a document. */
export async function executeFastCount(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
): Promise<number | undefined> {
  const expansions = new FuzzyExpansions();
  let plans = planAll(readers, request, expansions);
  if (plans && expansions.missing > 0) {
    await expansions.load(db);
    plans = planAll(readers, request, expansions);
  }
  if (!plans) return undefined;
  const postings = await Promise.all(plans.map((plan) => loadMatchPostings(db, plan)));
  return plans.reduce((sum, plan, i) => sum + scoreMatchPlan(plan.root, postings[i]!).length, 0);
}

function planAll(
  readers: IndexReader[],
  request: SearchRequest,
  expansions: FuzzyExpansions,
): FastMatchPlan[] | undefined {
  if (!isFastMatchRequest(request)) return undefined;
  const plans: FastMatchPlan[] = [];
  for (const reader of readers) {
    const plan = planFastMatch(reader, request, expansions);
    if (!plan) return undefined;
    plans.push(plan);
  }
  return plans;
}

const PAGE_SQL = `SELECT d.index_id, d.doc_key, d.id, d.source::text AS source_text, d.version, d.seq_no,
         d.primary_term, p.rn
  FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS p(index_id, doc_key, rn)
  JOIN documents d ON d.index_id = p.index_id AND d.doc_key = p.doc_key`;

/** The page and the catalog (CatalogFold): the catalog's row is the one without a rank, its columns in id and source_text. */
const PAGE_WITH_CATALOG = (select: string) => `${PAGE_SQL}
  UNION ALL
  SELECT NULL, NULL, c.indices::text, c.aliases::text, NULL, NULL, NULL, NULL FROM (${select}) c`;

/**
 * The page's documents in page order; one deleted since its postings were read is left out. With
 * `fold`, the same statement reads the catalog (fold.found), even for an empty page.
 */
async function loadPageRows(
  db: Pool | PoolClient,
  page: { indexId: string; docKey: number; score: number }[],
  fold?: CatalogFold,
): Promise<HitRow[]> {
  if (page.length === 0 && !fold) return [];
  // Numbered after the page's two parameters.
  const catalog = fold?.statement(3);
  const { rows } = await db.query<HitRow & { rn: string | null }>({
    name: catalog ? `fast-match-page-${catalog.name}` : 'fast-match-page',
    text: catalog ? PAGE_WITH_CATALOG(catalog.select) : PAGE_SQL,
    values: [page.map((p) => p.indexId), page.map((p) => p.docKey), ...(catalog ? catalog.values : [])],
  });
  const hits: (HitRow | undefined)[] = new Array(page.length);
  for (const row of rows) {
    if (row.rn === null) {
      fold!.found = { indices: row.id, aliases: row.source_text };
      continue;
    }
    const rank = Number(row.rn) - 1;
    hits[rank] = { ...row, s: page[rank]!.score };
  }
  return hits.filter((hit) => hit !== undefined);
}
