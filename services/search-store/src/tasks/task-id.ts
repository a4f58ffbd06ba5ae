import { createHash } from 'node:crypto';
import { EsError } from '@acme/common';

/** A task id as Elasticsearch writes it: `<node id>:<number>`. */
export interface TaskId {
  nodeId: string;
  number: number;
}

/**
 * ES TaskId(String): split at the first `:`, the rest a long; anything else is "malformed task id"
 * (400 illegal_argument_exception).
 */
export function parseTaskId(text: string): TaskId {
  const colon = text.indexOf(':');
  const number = colon < 0 ? '' : text.slice(colon + 1);
  if (colon < 0 || !/^-?\d{1,19}$/.test(number) || !Number.isSafeInteger(Number(number))) {
    throw new EsError('illegal_argument_exception', `malformed task id ${text}`);
  }
  return { nodeId: text.slice(0, colon), number: Number(number) };
}

export function formatTaskId(id: TaskId): string {
  return `${id.nodeId}:${id.number}`;
}

/**
 * The node id of an instance: 22 base64url characters as Elasticsearch's node ids, derived from
 * NODE_NAME so that it stays the same across restarts. Instances sharing a name share a node id; task
 * numbers come from one sequence, so ids never collide.
 */
export function nodeIdOf(nodeName: string): string {
  return createHash('sha256').update(`search-store node ${nodeName}`).digest('base64url').slice(0, 22);
}
