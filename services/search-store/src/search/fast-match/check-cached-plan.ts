import type { CustomTypesConfig, Pool, PoolClient, QueryArrayConfig } from 'pg';
import type { HitRow } from '../hits/build-hits';
import { STATS } from './load-match-postings';
import type { FastMatchPlan } from './plan-fast-match';
import { termKey, type CachedPlan } from './postings-cache';

/**
 * One statement for a search scored from the cache: the current field statistics and term versions
 * of the plan (one snapshot) and the page's documents. When every statistic and version equals what
 * the scores were computed with, the postings are the ones this snapshot holds and the page is the
 * page a fresh read would give, so the answer stands; otherwise the caller reads the postings again.
 * Row kinds: 0 = field (path, doc_count, sum_total_term_freq); 1 = term (path, term, term_id,
 * doc_freq, version); 2 = a page document (id, source, doc_key, rank, version, seq_no, primary_term);
 * 3 = the search catalog (indices, aliases: search/load-search-catalog.ts), when asked for, so that the
 * request makes this one statement in all.
 */
const SQL = `WITH ${STATS}
  SELECT 0 AS kind, f.path AS s1, NULL::text AS s2, f.doc_count AS n1, f.sum_total_term_freq AS n2,
         NULL::int8 AS n3, NULL::int8 AS n4, NULL::int8 AS n5, NULL::text AS v
  FROM f
  UNION ALL
  SELECT 1, t.path, t.term, t.term_id, t.doc_freq::int8, NULL, NULL, NULL, t.version FROM t
  UNION ALL
  SELECT 2, d.id, d.source::text, d.doc_key, p.rn, d.version, d.seq_no, d.primary_term, NULL
  FROM unnest($5::bigint[]) WITH ORDINALITY AS p(doc_key, rn)
  JOIN documents d ON d.index_id = $1 AND d.doc_key = p.doc_key`;

const WITH_CATALOG = (select: string) => `${SQL}
  UNION ALL
  SELECT 3, c.indices::text, c.aliases::text, NULL, NULL, NULL, NULL, NULL, NULL FROM (${select}) c`;

/** The catalog read along (CatalogFold), as its two text columns. */
export interface CatalogText {
  indices: string;
  aliases: string;
}

/**
 * A request's catalog statement handed to the fast path (search/fast-search.ts), its parameters
 * numbered from `first` (after those of the statement it joins): `taken` is set, before the first
 * await, when the search runs it inside one of its own statements, and `found` once it has run.
 */
export interface CatalogFold {
  statement(first: number): { select: string; values: unknown[]; name: string };
  taken?: boolean;
  found?: CatalogText;
}

const RAW = { getTypeParser: () => (value: string) => value } as unknown as CustomTypesConfig;

/**
 * The page's rows in page order when the cached plan still holds; undefined when anything changed.
 * With `fold`, the catalog is read in the same statement (fold.found), whatever the outcome.
 */
export async function checkCachedPlan(
  db: Pool | PoolClient,
  plan: FastMatchPlan,
  cached: CachedPlan,
  page: { docKey: number; score: number }[],
  fold?: CatalogFold,
): Promise<HitRow[] | undefined> {
  // Numbered after the five parameters of the check.
  const catalog = fold?.statement(6);
  const query: QueryArrayConfig = {
    name: catalog ? `fast-match-check-${catalog.name}` : 'fast-match-check',
    text: catalog ? WITH_CATALOG(catalog.select) : SQL,
    values: [
      plan.reader.indexId,
      plan.fields,
      plan.terms.map((t) => t.path),
      plan.terms.map((t) => t.term),
      page.map((p) => p.docKey),
      ...(catalog ? catalog.values : []),
    ],
    rowMode: 'array',
    types: RAW,
  };
  const { rows } = await db.query<(string | null)[]>(query);
  let fields = 0;
  let terms = 0;
  let changed = false;
  const hits: HitRow[] = new Array(page.length);
  let found = 0;
  for (const row of rows) {
    const kind = Number(row[0]);
    if (kind === 0) {
      const stats = cached.postings.fields.get(row[1]!);
      if (!stats || stats.docCount !== Number(row[3]) || stats.sumTotalTermFreq !== Number(row[4]))
        changed = true;
      fields++;
    } else if (kind === 1) {
      const version = cached.versions.get(termKey(row[1]!, row[2]!));
      if (!version || version.termId !== row[3] || version.version !== row[8]) changed = true;
      terms++;
    } else if (kind === 3) {
      fold!.found = { indices: row[1]!, aliases: row[2]! };
    } else {
      const rank = Number(row[4]) - 1;
      hits[rank] = {
        index_id: plan.reader.indexId,
        doc_key: row[3]!,
        id: row[1]!,
        source_text: row[2]!,
        version: row[5]!,
        seq_no: row[6]!,
        primary_term: row[7]!,
        s: page[rank]!.score,
      };
      found++;
    }
  }
  // A field or term that appeared since, or a page document gone (both mean the postings changed).
  if (
    changed ||
    fields !== cached.postings.fields.size ||
    terms !== cached.versions.size ||
    found !== page.length
  )
    return undefined;
  return hits;
}
