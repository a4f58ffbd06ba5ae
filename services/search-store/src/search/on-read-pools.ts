import { isReplicaFailure, type ReadPools, type ReplicaSet } from '../storage/replica-set';

/**
 * Runs a search's reads on a read replica fresh enough to serve it (storage/replica-set.ts), else on
 * the primary. A replica failing in a way the primary would not (its connection lost, a recovery
 * conflict cancelling the statement) is marked down and the search runs again on the primary: the
 * client sees an answer, never the replica's trouble.
 */
export async function onReadPools<T>(
  deps: ReadPools & { replicas?: ReplicaSet },
  work: (pools: ReadPools) => Promise<T>,
): Promise<T> {
  const replica = deps.replicas?.pick();
  if (!replica) return work(deps);
  try {
    return await work(replica);
  } catch (error) {
    if (!isReplicaFailure(error)) throw error;
    deps.replicas?.markDown(replica);
    return work(deps);
  }
}
