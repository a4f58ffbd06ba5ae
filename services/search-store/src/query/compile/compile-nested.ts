import { nestedDocsAt, withAncestor } from '../../index/nested-docs-reader';
import { listNestedPaths, objectMappingAt } from '../../mapping/nested-mapping';
import type { NestedQuery } from '../nested-query';
import { nestedScopeReader } from '../nested-scope';
import type { Query } from '../query-ast';
import { NOTHING, type CompileContext } from './compile-context';
import { shardFailure } from './multi-term-rewrite';

type CompileQuery = (ctx: CompileContext, query: Query, boost?: number, scoring?: boolean) => Promise<string>;

/**
 * ES NestedQueryBuilder.doToQuery: the path must be a mapped nested object (else, unless
 * ignore_unmapped, the shard fails: query_shard_exception over an illegal_state_exception).
 */
export function checkNestedPath(ctx: CompileContext, path: string): boolean {
  const target = objectMappingAt(ctx.reader.mappings, path);
  if (!target) return false;
  if (target.type !== 'nested')
    throw shardFailure(
      `[nested] nested object under path [${path}] is not of nested type`,
      'illegal_state_exception',
    );
  return true;
}

/** How many nested levels lie between a path and the scope above it; undefined when it is not under it. */
export function levelsUp(ctx: CompileContext, path: string): number | 'root' | undefined {
  const scope = ctx.reader.nestedScope ?? '';
  if (scope === '') return 'root';
  if (!path.startsWith(`${scope}.`)) return undefined;
  const paths = listNestedPaths(ctx.reader.mappings);
  let levels = 0;
  let at: string | undefined = path;
  while (at !== undefined && at !== scope && levels <= paths.length) {
    levels++;
    at = paths.find((p) => p.path === at)?.parent;
  }
  return at === scope ? levels : undefined;
}

/**
 * Lucene's ToParentBlockJoinQuery over the path's objects: the inner query runs with the path's
 * objects as documents (nested-scope.ts), and each document (or enclosing object) holding matches
 * scores them by `score_mode`: BlockJoinScorer sums in double, avg divides by the count, the result
 * is a float; `none` scores 0. Boosts reach the inner leaves, as Lucene's createWeight passes them.
 */
export async function compileNested(
  ctx: CompileContext,
  query: NestedQuery<Query>,
  boost: number,
  scoring: boolean,
  compileQuery: CompileQuery,
): Promise<string> {
  if (!checkNestedPath(ctx, query.path)) {
    if (query.ignoreUnmapped) return NOTHING;
    throw shardFailure(
      `[nested] failed to find nested object under path [${query.path}]`,
      'illegal_state_exception',
    );
  }
  const up = levelsUp(ctx, query.path);
  // A path outside the enclosing nested object's: none of its objects is in the scope's documents.
  if (up === undefined) return NOTHING;
  const { params } = ctx;
  const scored = scoring && query.scoreMode !== 'none';
  const inner = await compileQuery(
    { ...ctx, reader: nestedScopeReader(ctx.reader, query.path) },
    query.query,
    boost,
    scored,
  );
  const idx = `${params.add(ctx.reader.indexId)}::bigint`;
  const rows = withAncestor(idx, inner, `${params.add(query.path)}::text`, up);
  const score = !scored
    ? '0::float4'
    : query.scoreMode === 'avg'
      ? '(sum(s::float8) / count(*))::float4'
      : query.scoreMode === 'sum'
        ? 'sum(s::float8)::float4'
        : `${query.scoreMode}(s)`;
  return `SELECT parent_key AS doc_key, ${score} AS s FROM (${rows}) j GROUP BY parent_key`;
}

/** match_all inside a nested query: every object at the scope's path. */
export function compileNestedMatchAll(ctx: CompileContext, score: number): string {
  const { params, reader } = ctx;
  const docs = nestedDocsAt(
    `${params.add(reader.indexId)}::bigint`,
    `${params.add(reader.nestedScope)}::text`,
  );
  return `SELECT doc_key, ${params.add(score)}::float4 AS s FROM (${docs}) a`;
}

/**
 * The inner hits' candidates of a nested query (ES NestedInnerHitContextBuilder): the inner query's
 * matches among the path's objects inside `owners` (documents, or objects of the enclosing nested
 * query's inner hits), as `(parent_key, doc_key, s, total, rn)` with each object's own score (the
 * inner query unboosted), the number of matches per owner, and their rank by score then doc order;
 * undefined when the path is unmapped (ignore_unmapped).
 */
export async function compileInnerMatches(
  ctx: CompileContext,
  query: NestedQuery<Query>,
  owners: string[],
  compileQuery: CompileQuery,
): Promise<string | undefined> {
  if (!checkNestedPath(ctx, query.path)) return undefined;
  const up = levelsUp(ctx, query.path);
  if (up === undefined) return undefined;
  const { params } = ctx;
  const inner = await compileQuery(
    { ...ctx, reader: nestedScopeReader(ctx.reader, query.path) },
    query.query,
    1,
    true,
  );
  const idx = `${params.add(ctx.reader.indexId)}::bigint`;
  const rows = withAncestor(idx, inner, `${params.add(query.path)}::text`, up);
  return `SELECT parent_key, doc_key, s, count(*) OVER (PARTITION BY parent_key) AS total,
            row_number() OVER (PARTITION BY parent_key ORDER BY s DESC, doc_key) AS rn
          FROM (${rows}) j WHERE parent_key = ANY(${params.add(owners)}::bigint[])`;
}
