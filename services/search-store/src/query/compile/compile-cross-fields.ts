import { analyze } from '../../analysis/analyzer';
import { joinPostings } from '../../index/postings-reader';
import { NOTHING, type CompileContext } from './compile-context';
import { analyzerFor, loadTerms, type TermStat } from './compile-term-clauses';
import { matchFieldPattern, type ReaderField } from '../index-reader';
import { minimumShouldMatch } from '../minimum-should-match';
import type { Query } from '../query-ast';
import { avgFieldLength, idf, normInverseCache, termWeight } from '../score/bm25';
import { ShardQueryError } from '../shard-query-error';

const f = Math.fround;

/**
 * Elasticsearch's BlendedTermQuery.blend (cross_fields): one term's document frequency in each field
 * of a group, blended so the fields score the term alike. The largest df (capped by maxDoc, itself
 * capped by the smallest sumTotalTermFreq of the fields holding the term) goes to the most frequent
 * field; going down the fields by df, each strictly rarer field gets one more (a bias toward the
 * popular fields), every value capped by the field's docCount and maxDoc. Fields without the term
 * keep 0. Lucene sorts with a stable merge sort, as Array.prototype.sort is.
 */
export function blendDocFreqs(
  dfs: number[],
  docCounts: number[],
  sumTotalTermFreqs: number[],
  maxDoc: number,
): number[] {
  let max = 0;
  let minSumTtf = Infinity;
  dfs.forEach((df, i) => {
    max = Math.max(max, df);
    if (df > 0) minSumTtf = Math.min(minSumTtf, sumTotalTermFreqs[i]!);
  });
  let cap = maxDoc;
  if (cap > minSumTtf) cap = minSumTtf;
  const out = dfs.slice();
  if (max === 0) return out;
  const order = dfs.map((_, i) => i).sort((a, b) => dfs[b]! - dfs[a]!);
  let prev = dfs[order[0]!]!;
  let actual = Math.min(cap, max);
  for (const i of order) {
    const current = dfs[i]!;
    if (current === 0) break;
    if (prev > current) actual += 1;
    out[i] = Math.min(actual, docCounts[i]!, cap);
    prev = current;
  }
  return out;
}

interface Member {
  path: string;
  field: ReaderField;
  boost: number;
}

/**
 * multi_match `cross_fields` (ES 8 reference; MultiMatchQueryParser.buildCrossFieldQuery): the fields
 * grouped by search analyzer; a group of one field is a match query on it; a bigger group analyses
 * the text once and, per term, takes the DisjunctionMaxQuery (tie_breaker) of the field term queries
 * scored with blended document frequencies (blendDocFreqs), the terms combined by `operator` and
 * `minimum_should_match`; the groups are combined by DisjunctionMaxQuery.
 */
export async function compileCrossFields(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'multi_match' }>,
  boost: number,
  scoring: boolean,
  compileQuery: (ctx: CompileContext, query: Query, boost: number, scoring: boolean) => Promise<string>,
): Promise<string> {
  const groups = new Map<string, Member[]>();
  const paths = [...ctx.reader.fields.keys()];
  for (const spec of query.fields) {
    for (const path of paths.filter(matchFieldPattern(spec.field))) {
      const field = ctx.reader.fields.get(path)!;
      if (spec.field.includes('*') && field.type !== 'text' && field.type !== 'keyword') continue;
      const key =
        field.type === 'text'
          ? `text:${analyzerFor(ctx, field, query.analyzer).name}`
          : `${field.type}:${path}`;
      const group = groups.get(key) ?? [];
      group.push({ path, field, boost: spec.boost });
      groups.set(key, group);
    }
  }
  const parts: string[] = [];
  for (const members of groups.values()) {
    if (members.length === 1) {
      const m = members[0]!;
      const match: Query = {
        kind: 'match',
        field: m.path,
        query: query.query,
        operator: query.operator,
        minimumShouldMatch: query.minimumShouldMatch,
        analyzer: query.analyzer,
        zeroTermsQuery: 'none',
        boost: 1,
      };
      parts.push(
        await compileQuery(ctx, match, f(boost * m.boost), scoring).catch((error: unknown) => {
          if (error instanceof ShardQueryError) return NOTHING;
          throw error;
        }),
      );
    } else {
      parts.push(await compileBlended(ctx, query, members, boost, scoring));
    }
  }
  if (parts.length === 0) return NOTHING;
  return disMax(ctx, parts, query.tieBreaker);
}

function disMax(ctx: CompileContext, parts: string[], tieBreaker: number): string {
  const tie = ctx.params.add(tieBreaker);
  const union = parts.map((p) => `SELECT doc_key, s FROM (${p}) m`).join(' UNION ALL ');
  return `SELECT doc_key, CASE WHEN ${tie}::float4 = 0 THEN max(s)
            ELSE (max(s)::float8 + (sum(s::float8) - max(s)::float8) * ${tie}::float4)::float4 END AS s
          FROM (${union}) u GROUP BY doc_key`;
}

async function compileBlended(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'multi_match' }>,
  members: Member[],
  boost: number,
  scoring: boolean,
): Promise<string> {
  const terms = analyze(analyzerFor(ctx, members[0]!.field, query.analyzer), query.query).map((t) => t.term);
  if (terms.length === 0) return NOTHING;
  const unique = [...new Set(terms)];
  const stats: Map<string, TermStat>[] = await Promise.all(
    members.map((m) => loadTerms(ctx, m.field, unique)),
  );
  const maxDoc = await countDocuments(ctx);
  const { params } = ctx;
  const idx = params.add(ctx.reader.indexId);
  const termParts: string[] = [];
  for (const term of terms) {
    const dfs = stats.map((s) => s.get(term)?.docFreq ?? 0);
    const blended = blendDocFreqs(
      dfs,
      members.map((m) => m.field.docCount),
      members.map((m) => m.field.sumTotalTermFreq),
      maxDoc,
    );
    const fieldParts: string[] = [];
    members.forEach((m, i) => {
      const stat = stats[i]!.get(term);
      if (!stat || blended[i]! === 0) return;
      const weight = termWeight(f(boost * m.boost), idf(blended[i]!, m.field.docCount));
      const avgdl = avgFieldLength({
        docCount: m.field.docCount,
        sumTotalTermFreq: m.field.sumTotalTermFreq,
      });
      const score = scoring
        ? `sum((w.w - w.w / (1::float4 + p.freq::float4 * (${params.add(normInverseCache(avgdl))}::float4[])[p.norm + 1]))::float8)::float4`
        : '0::float4';
      fieldParts.push(`SELECT p.doc_key, ${score} AS s
          FROM unnest(${params.add([stat.termId])}::bigint[], ${params.add([weight])}::float4[]) AS w(term_id, w)
          ${joinPostings('p', `${idx}::bigint`, 'w.term_id')}
          GROUP BY p.doc_key`);
    });
    if (fieldParts.length > 0) termParts.push(disMax(ctx, fieldParts, query.tieBreaker));
  }
  const required =
    query.operator === 'and'
      ? terms.length
      : Math.max(1, minimumShouldMatch(terms.length, query.minimumShouldMatch));
  if (termParts.length < required) return NOTHING;
  return `SELECT doc_key, sum(s::float8)::float4 AS s
          FROM (${termParts.map((p) => `SELECT doc_key, s FROM (${p}) t`).join(' UNION ALL ')}) u
          GROUP BY doc_key HAVING count(*) >= ${params.add(required)}`;
}

/** Lucene's maxDoc for one index: its documents (exact here, no deletions pending). */
async function countDocuments(ctx: CompileContext): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM documents WHERE index_id = $1::bigint',
    [ctx.reader.indexId],
  );
  return rows[0]?.n ?? 0;
}
