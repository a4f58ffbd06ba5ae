import { newDictionary } from '@acme/common';
import type { Pool, PoolClient } from 'pg';
import { compileQuery } from '../../query/compile/compile-query';
import type { SearchRuntimeFields } from '../../query/compile/search-runtime-fields';
import { SqlParams } from '../../query/compile/sql-params';
import type { IndexReader } from '../../query/index-reader';
import { namedQueries } from '../../query/parse/query-name';
import type { SearchRequest } from '../../query/parse/search-request';
import { formatFloat } from '../../query/score/bm25';
import type { HitRow } from './build-hits';

/**
 * `matched_queries` (ES "Named queries"): for each hit, the named queries of `query` and `post_filter`
 * (at any depth, in must_not and unmatched should clauses too) that match the document on their own;
 * with `include_named_queries_score=true`, an object of each one's own score. Names are listed sorted.
 */
export async function addMatchedQueries(
  db: Pool | PoolClient,
  readers: IndexReader[],
  request: SearchRequest,
  rows: HitRow[],
  hits: Record<string, unknown>[],
  options: { now: number; runtime?: SearchRuntimeFields; withScores: boolean },
): Promise<void> {
  const named = new Map([...namedQueries(request.query), ...namedQueries(request.postFilter)]);
  if (named.size === 0 || rows.length === 0) return;
  const names = [...named.keys()].sort();
  // hit index by "index_id/doc_key"
  const found = new Map<string, Map<string, number>>();
  for (const reader of readers) {
    const keys = rows.filter((r) => String(r.index_id) === reader.indexId).map((r) => String(r.doc_key));
    if (keys.length === 0) continue;
    for (const name of names) {
      const params = new SqlParams();
      const sql = await compileQuery(
        { db, reader, params, now: options.now, runtime: options.runtime },
        named.get(name)!,
        1,
        options.withScores,
      );
      const { rows: matched } = await db.query<{ doc_key: string; s: number }>(
        `SELECT doc_key, s FROM (${sql}) n WHERE doc_key = ANY(${params.add(keys)}::bigint[])`,
        params.values,
      );
      for (const m of matched) {
        const key = `${reader.indexId}/${m.doc_key}`;
        let scores = found.get(key);
        if (!scores) found.set(key, (scores = new Map()));
        if (!scores.has(name)) scores.set(name, m.s);
      }
    }
  }
  rows.forEach((row, i) => {
    const scores = found.get(`${row.index_id}/${row.doc_key}`);
    if (!scores || scores.size === 0) return;
    const ordered = names.filter((n) => scores.has(n));
    let value: unknown = ordered;
    if (options.withScores) {
      // Keyed by the client's query names: a null-prototype object keeps `__proto__` a key.
      const byName = newDictionary<number>();
      for (const n of ordered) byName[n] = formatFloat(scores.get(n)!);
      value = byName;
    }
    hits[i] = withMatched(hits[i]!, value);
  });
}

/** SearchHit's field order: matched_queries after sort, before _explanation and inner_hits. */
function withMatched(hit: Record<string, unknown>, value: unknown): Record<string, unknown> {
  const out = newDictionary<unknown>();
  let placed = false;
  for (const [key, v] of Object.entries(hit)) {
    if (!placed && (key === '_explanation' || key === 'inner_hits')) {
      out.matched_queries = value;
      placed = true;
    }
    out[key] = v;
  }
  if (!placed) out.matched_queries = value;
  return out;
}
