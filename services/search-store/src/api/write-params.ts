import type { Request } from 'express';
import { EsError } from '@acme/common';
import { parseLongParam, parseRefreshParam, stringParam, type RefreshPolicy } from '../http/query-params';
import type { ReadVersion } from '../write/get-document';
import type { WriteConditions } from '../write/write-op';

/** `version_type`: ES VersionType#fromString ("No version type match [x]"). */
function versionTypeOf(query: Record<string, unknown>): WriteConditions['versionType'] {
  return parseVersionType(stringParam(query.version_type));
}

export function parseVersionType(versionType: string | undefined): WriteConditions['versionType'] {
  if (versionType !== undefined && !['internal', 'external', 'external_gte'].includes(versionType)) {
    throw new EsError('illegal_argument_exception', `No version type match [${versionType}]`);
  }
  return versionType as WriteConditions['versionType'];
}

/** ES Versions.MATCH_ANY: what `version` is when the request names none. */
const MATCH_ANY = -3;
const MATCH_DELETED = -4;

export function validationFailed(errors: string[]): EsError {
  return new EsError(
    'action_request_validation_exception',
    `Validation Failed: ${errors.map((e, i) => `${i + 1}: ${e};`).join('')}`,
  );
}

/**
 * if_seq_no / if_primary_term / version / version_type of one write, from URL parameters; throws the
 * request's validation errors (see writeConditionErrors).
 */
export function parseConditions(query: Record<string, unknown>, create = false): WriteConditions {
  const conditions: WriteConditions = {
    ifSeqNo: parseLongParam(query.if_seq_no, 'if_seq_no'),
    ifPrimaryTerm: parseLongParam(query.if_primary_term, 'if_primary_term'),
    version: parseLongParam(query.version, 'version'),
    versionType: versionTypeOf(query),
  };
  const errors = writeConditionErrors(conditions, create);
  if (errors.length > 0) throw validationFailed(errors);
  return conditions;
}

/**
 * The validation errors of one write's conditions, as ES IndexRequest#validate / DeleteRequest#validate
 * list them. `create` (IndexRequest#validate for op_type=create) stops at its first error, before the
 * CAS checks: only internal versioning, no explicit version, no compare-and-set. Otherwise
 * DocWriteRequest#validateSeqNoBasedCASParams, in its order: the version valid for the type
 * (VersionType#validateVersionForWrites: internal > 0, external ≥ 0 and given), no internal versioning,
 * no versioning with compare-and-write, if_seq_no and if_primary_term together; `hasId` false (an index
 * request whose id is generated) may carry no version. A list, not a throw,
 * because _bulk (BulkRequest#validate) reports every item's errors in one exception.
 */
export function writeConditionErrors(conditions: WriteConditions, create = false, hasId = true): string[] {
  const { ifSeqNo, ifPrimaryTerm, version, versionType } = conditions;
  if (create) {
    if (versionType !== undefined && versionType !== 'internal') {
      return ['create operations only support internal versioning. use index instead'];
    }
    if (version !== undefined && version !== MATCH_DELETED) {
      return ['create operations do not support explicit versions. use index instead'];
    }
    if (ifSeqNo !== undefined || ifPrimaryTerm !== undefined) {
      return ['create operations do not support compare and set. use index instead'];
    }
  }
  const errors: string[] = [];
  const resolved = version ?? MATCH_ANY;
  const internal = versionType === undefined || versionType === 'internal';
  // An auto-generated id cannot carry a version (IndexRequest#validate).
  if (!hasId && (!internal || (resolved !== MATCH_ANY && resolved !== MATCH_DELETED))) {
    errors.push('an id must be provided if version type or value are set');
  }
  const validForWrites = internal
    ? resolved > 0 || resolved === MATCH_ANY || resolved === MATCH_DELETED
    : resolved >= 0;
  if (!validForWrites) {
    errors.push(
      `illegal version value [${resolved}] for version type [${(versionType ?? 'internal').toUpperCase()}]`,
    );
  }
  if (internal && resolved !== MATCH_ANY && resolved !== MATCH_DELETED) {
    errors.push(
      'internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead',
    );
  }
  if (ifSeqNo !== undefined && (!internal || resolved !== MATCH_ANY)) {
    errors.push('compare and write operations can not use versioning');
  }
  if (ifSeqNo !== undefined && ifSeqNo < 0)
    errors.push(`sequence number must be non negative. got [${ifSeqNo}].`);
  if (ifSeqNo !== undefined && (ifPrimaryTerm === undefined || ifPrimaryTerm === 0)) {
    errors.push(`ifSeqNo is set, but primary term is [0]`);
  }
  if (ifPrimaryTerm !== undefined && ifSeqNo === undefined) {
    errors.push(`ifPrimaryTerm [${ifPrimaryTerm}] is set, but ifSeqNo is unassigned`);
  }
  return errors;
}

/**
 * `version` / `version_type` on GET and get source (ES GetRequest#validate): the version must be valid
 * for reads (VersionType#validateVersionForReads: internal > 0, external ≥ 0; -3 is "any").
 */
export function parseReadVersion(query: Record<string, unknown>): ReadVersion | undefined {
  const version = parseLongParam(query.version, 'version');
  const versionType = versionTypeOf(query) ?? 'internal';
  if (version === undefined || version === MATCH_ANY) return undefined;
  const valid = versionType === 'internal' ? version > 0 : version >= 0;
  if (!valid) {
    throw validationFailed([
      `illegal version value [${version}] for version type [${versionType.toUpperCase()}]`,
    ]);
  }
  return { version, versionType };
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
