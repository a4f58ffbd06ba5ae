import { EsError } from '@acme/common';
import type { Line } from '../../http/read-lines';
import { parseJsonText } from '../../http/parse-json-text';
import type { WriteConditions, WriteOp } from '../../write/write-op';
import { parseVersionType, validationFailed, writeConditionErrors } from '../write-params';

const ACTIONS = new Set(['index', 'create', 'delete', 'update']);
const ACTION_PARAMETERS = new Set([
  '_index',
  '_id',
  'routing',
  '_routing',
  'if_seq_no',
  'if_primary_term',
  'version',
  'version_type',
  'op_type',
  'pipeline',
  'require_alias',
  'require_data_stream',
  'retry_on_conflict',
  '_source',
  'dynamic_templates',
  'list_executed_pipelines',
]);

function malformed(reason: string): EsError {
  return new EsError('illegal_argument_exception', reason);
}

/** A bulk op plus what a failed item needs to report. */
export interface BulkItem {
  action: 'index' | 'create' | 'delete' | 'update';
  op: WriteOp;
  /** A per-item error found while parsing (e.g. a source line that is not JSON). */
  error?: EsError;
}

/**
 * Parses a bulk body line by line (ES BulkRequestParser): an action/metadata line, then a source line
 * for index/create/update. Syntax errors fail the whole request with Elasticsearch's messages
 * ("Malformed action/metadata line [N], …", "The bulk request must be terminated by a newline [\n]");
 * a bad document source is only that item's error. Then, as BulkRequest#validate does, every item's
 * validation errors (index or id missing, versions and compare-and-set) fail the whole request
 * together, numbered in one action_request_validation_exception.
 */
export async function parseBulk(
  lines: AsyncIterable<Line>,
  defaultIndex: string | undefined,
  defaultRequireAlias = false,
): Promise<BulkItem[]> {
  const items: BulkItem[] = [];
  const errors: string[] = [];
  const iterator = lines[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const line = next.value;
    if (line.text.trim() === '') {
      if (!line.terminated) break;
      continue;
    }
    if (!line.terminated) throw malformed('The bulk request must be terminated by a newline [\\n]');
    const { action, meta } = parseActionLine(line);
    const index = typeof meta._index === 'string' ? meta._index : (defaultIndex ?? '');
    if (index === '') errors.push('index is missing');
    const id = meta._id === undefined || meta._id === null ? undefined : String(meta._id);
    if (id === undefined && (action === 'delete' || action === 'update')) errors.push('id is missing');
    const conditions = parseItemConditions(meta, line.number);
    if (
      action === 'update' &&
      (conditions.version !== undefined || (conditions.versionType ?? 'internal') !== 'internal')
    ) {
      // BulkRequestParser refuses these while parsing: the whole request, not a validation error.
      throw malformed(
        'Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead',
      );
    }
    if (action === 'delete') {
      errors.push(...writeConditionErrors(conditions));
      items.push({ action, op: { kind: 'delete', index, id: id ?? '', ...conditions } });
      continue;
    }
    // The item's own `require_alias` wins over the URL's (ES BulkRequestParser).
    const requireAlias = typeof meta.require_alias === 'boolean' ? meta.require_alias : defaultRequireAlias;
    const sourceLine = await iterator.next();
    if (sourceLine.done) break; // ES drops a trailing action without its source line
    if (!sourceLine.value.terminated)
      throw malformed('The bulk request must be terminated by a newline [\\n]');
    const text = sourceLine.value.text;
    if (action === 'update') {
      const body = parseJsonText(text);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw malformed(`Malformed action/metadata line [${sourceLine.value.number}], expected START_OBJECT`);
      }
      items.push({
        action,
        op: {
          kind: 'update',
          index,
          id: id ?? '',
          // `_source` on the action line asks for `get` in the item, as on the update API.
          body:
            meta._source === undefined
              ? (body as Record<string, unknown>)
              : { ...body, _source: meta._source },
          bodyText: text,
          requireAlias,
          ...conditions,
        },
      });
      continue;
    }
    const kind = action === 'create' || meta.op_type === 'create' ? 'create' : 'index';
    errors.push(...writeConditionErrors(conditions, kind === 'create', id !== undefined));
    try {
      const source = parseJsonText(text);
      items.push({
        action,
        op: { kind, index, id, source, sourceText: text, requireAlias, ...conditions },
      });
    } catch (error) {
      if (!(error instanceof EsError)) throw error;
      const failure = new EsError(
        'document_parsing_exception',
        `${error.reason.split(' ')[0]} failed to parse`,
        {
          causedBy: error.toCause(),
        },
      );
      items.push({ action, op: { kind, index, id, source: {}, ...conditions }, error: failure });
    }
  }
  if (items.length === 0) {
    throw new EsError('action_request_validation_exception', 'Validation Failed: 1: no requests added;');
  }
  if (errors.length > 0) throw validationFailed(errors);
  return items;
}

/**
 * An item's `version`, `version_type`, `if_seq_no` and `if_primary_term` as BulkRequestParser reads
 * them: numbers or numeric strings (the parser's longValue coerces), an unknown version type refused
 * for the whole request (VersionType#fromString).
 */
function parseItemConditions(meta: Record<string, unknown>, line: number): WriteConditions {
  const long = (key: string): number | undefined => {
    const value = meta[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    if (typeof value === 'string' && /^-?\d{1,18}$/.test(value)) return Number(value);
    throw malformed(
      `Malformed action/metadata line [${line}], failed to parse field [${key}] of type long: [${String(value)}]`,
    );
  };
  const versionType = meta.version_type;
  if (versionType !== undefined && typeof versionType !== 'string') {
    throw malformed(`No version type match [${String(versionType)}]`);
  }
  return {
    ifSeqNo: long('if_seq_no'),
    ifPrimaryTerm: long('if_primary_term'),
    version: long('version'),
    versionType: parseVersionType(versionType),
  };
}

function parseActionLine(line: Line): { action: BulkItem['action']; meta: Record<string, unknown> } {
  // A syntax error in the action line is the JSON parser's own error, for the whole request (as in ES).
  const value = parseJsonText(line.text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const found = Array.isArray(value)
      ? 'START_ARRAY'
      : typeof value === 'string'
        ? 'VALUE_STRING'
        : 'VALUE_NUMBER';
    throw malformed(
      `Malformed action/metadata line [${line.number}], expected START_OBJECT or END_OBJECT but found [${found}]`,
    );
  }
  const keys = Object.keys(value);
  const [action] = keys;
  if (action === undefined) {
    throw malformed(
      `Malformed action/metadata line [${line.number}], expected FIELD_NAME but found [END_OBJECT]`,
    );
  }
  if (!ACTIONS.has(action)) {
    throw malformed(
      `Malformed action/metadata line [${line.number}], expected field [create], [delete], [index] or [update] but found [${action}]`,
    );
  }
  const meta = (value as Record<string, unknown>)[action];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw malformed(
      `Malformed action/metadata line [${line.number}], expected START_OBJECT but found [${Array.isArray(meta) ? 'START_ARRAY' : 'VALUE_STRING'}]`,
    );
  }
  if (keys.length > 1) {
    throw malformed(
      `Malformed action/metadata line [${line.number}], expected END_OBJECT but found [FIELD_NAME]`,
    );
  }
  for (const key of Object.keys(meta)) {
    if (!ACTION_PARAMETERS.has(key)) {
      throw malformed(`Action/metadata line [${line.number}] contains an unknown parameter [${key}]`);
    }
  }
  return { action: action as BulkItem['action'], meta: meta as Record<string, unknown> };
}
