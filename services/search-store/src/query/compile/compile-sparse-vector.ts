import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import type { CompileContext } from './compile-context';

/** sparse_vector: not yet compiled (issue 22 stage 6). */
export async function compileSparseVector(
  ctx: CompileContext,
  query: Extract<Query, { kind: 'sparse_vector' }>,
  _boost: number,
  _scoring: boolean,
): Promise<string> {
  void ctx;
  throw new ShardQueryError({
    type: 'illegal_argument_exception',
    reason: `[sparse_vector] query on [${query.field}] is not supported by search-store`,
  });
}
