import type { VectorQuery, Query } from '../query-ast';
import type { CompileContext } from './compile-context';
import { compileKnn } from './compile-knn';
import { compileRrf } from './compile-rrf';
import { compileScriptScore } from './compile-script-score';
import { compileSparseVector } from './compile-sparse-vector';

type Compile = (ctx: CompileContext, query: Query, boost: number, scoring: boolean) => Promise<string>;

/** The vector queries of issue 22 (knn, script_score, rrf, sparse_vector); `compile` is compile-query's entry. */
export function compileVectorQuery(
  ctx: CompileContext,
  query: VectorQuery,
  boost: number,
  scoring: boolean,
  compile: Compile,
): Promise<string> {
  switch (query.kind) {
    case 'knn':
      return compileKnn(ctx, query, boost, scoring, compile);
    case 'script_score':
      return compileScriptScore(ctx, query, boost, scoring, compile);
    case 'rrf':
      return compileRrf(ctx, query, boost, scoring, compile);
    case 'sparse_vector':
      return compileSparseVector(ctx, query, boost, scoring);
  }
}
