import type { Request } from 'express';
import { EsError } from '@acme/common';
import { parseLongParam, parseRefreshParam, stringParam, type RefreshPolicy } from '../http/query-params';
import type { WriteConditions } from '../write/write-op';

/** if_seq_no / if_primary_term / version / version_type, checked as ES IndexRequest#validate does. */
export function parseConditions(query: Record<string, unknown>): WriteConditions {
  const ifSeqNo = parseLongParam(query.if_seq_no, 'if_seq_no');
  const ifPrimaryTerm = parseLongParam(query.if_primary_term, 'if_primary_term');
  const version = parseLongParam(query.version, 'version');
  const versionType = stringParam(query.version_type);
  const errors: string[] = [];
  if (ifSeqNo !== undefined && ifSeqNo < 0)
    errors.push(`sequence number must be non negative. got [${ifSeqNo}].`);
  if (ifSeqNo !== undefined && (ifPrimaryTerm === undefined || ifPrimaryTerm === 0)) {
    errors.push(`ifSeqNo is set, but primary term is [0]`);
  }
  if (ifPrimaryTerm !== undefined && ifSeqNo === undefined) {
    errors.push(`ifPrimaryTerm [${ifPrimaryTerm}] is set, but ifSeqNo is unassigned`);
  }
  if (versionType !== undefined && !['internal', 'external', 'external_gte'].includes(versionType)) {
    throw new EsError('illegal_argument_exception', `No version type match [${versionType}]`);
  }
  if (version !== undefined && (versionType === undefined || versionType === 'internal')) {
    errors.push(
      'internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead',
    );
  }
  if (errors.length > 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: ${errors.map((e, i) => `${i + 1}: ${e};`).join('')}`,
    );
  }
  return {
    ifSeqNo,
    ifPrimaryTerm,
    version,
    versionType: versionType as WriteConditions['versionType'],
  };
}

export function refreshOf(req: Request): RefreshPolicy {
  return parseRefreshParam(req.query.refresh);
}

/** `op_type` on the index API: `index` (default) or `create`. */
export function parseOpType(value: unknown, hasId: boolean): 'index' | 'create' {
  const text = stringParam(value);
  if (text === undefined) return hasId ? 'index' : 'create';
  if (text === 'index' || text === 'create') return text;
  throw new EsError('illegal_argument_exception', `opType must be 'create' or 'index', found: [${text}]`);
}
