import type { EsError } from '@acme/common';

/** Optimistic concurrency and versioning parameters of one write (ES "Optimistic concurrency control"). */
export interface WriteConditions {
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  version?: number;
  versionType?: 'internal' | 'external' | 'external_gte';
}

interface BaseOp extends WriteConditions {
  /** The index or alias named by the request. */
  index: string;
  id?: string;
  /** `require_alias=true`: `index` must be an alias (never auto-created); ignored on deletes, as ES. */
  requireAlias?: boolean;
}

export interface IndexOp extends BaseOp {
  kind: 'index' | 'create';
  source: unknown;
  /** The JSON text the source came from, to report `[line:col]`; absent when unknown. */
  sourceText?: string;
  sourceTextBase?: (string | number)[];
}

export interface DeleteOp extends BaseOp {
  kind: 'delete';
  id: string;
}

export interface UpdateOp extends BaseOp {
  kind: 'update';
  id: string;
  body: Record<string, unknown>;
  bodyText?: string;
  /** `_source` on the update API: return the new source under `get` (ES UpdateResponse). */
  fetchSource?: { includes: string[]; excludes: string[] };
}

export type WriteOp = IndexOp | DeleteOp | UpdateOp;

export interface WriteSuccess {
  ok: true;
  status: number;
  /** `{_index,_id,_version,result,_shards,_seq_no,_primary_term}` (+ `get` for updates asking for `_source`). */
  body: Record<string, unknown>;
}

export interface WriteFailure {
  ok: false;
  status: number;
  index: string;
  id: string | undefined;
  error: EsError;
}

export type WriteResult = WriteSuccess | WriteFailure;
