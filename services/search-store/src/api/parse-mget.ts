import { parseReadVersion } from './write-params';
import type { ReadVersion } from '../write/get-document';
import { EsError } from '@acme/common';
import { sourceAsked, sourceParams, storedFieldNames } from './source-params';

/** What one `_mget` item asks for: `source` undefined means no `_source` in its answer. */
export interface MgetRequestItem {
  index: string;
  id: string;
  source: { includes: string[]; excludes: string[] } | undefined;
  /** The item's `version` / `version_type`: a document at another version is that item's 409. */
  version?: ReadVersion;
  /** `stored_fields` (the item's, else the URL's): names or patterns of `store: true` fields. */
  storedFields?: string[];
}

type SourceChoice = MgetRequestItem['source'];

const ITEM_KEYS = new Set([
  '_index',
  '_id',
  '_source',
  'routing',
  '_routing',
  'stored_fields',
  'version',
  'version_type',
]);

/**
 * The `_mget` body as Elasticsearch 8's MultiGetRequest reads it: `docs` (objects) or `ids` (the path's
 * index for each); the path index and the `_source*` query parameters are the items' defaults. An
 * unknown key is a parse_exception; then, as ES's validate(), every missing index or id is listed in one
 * action_request_validation_exception, and an empty list is "no documents to get".
 */
export function parseMget(
  body: unknown,
  pathIndex: string | undefined,
  query: Record<string, unknown>,
): MgetRequestItem[] {
  const defaults = sourceParams(query);
  const defaultStored =
    typeof query.stored_fields === 'string' ? storedFieldNames(query.stored_fields) : undefined;
  // With stored_fields and no `_source*` parameter, the items leave `_source` out (as GET).
  const defaultSource: SourceChoice =
    defaults.fetch && (defaultStored === undefined || sourceAsked(query))
      ? { includes: defaults.includes, excludes: defaults.excludes }
      : undefined;
  const parsed: {
    index: string | undefined;
    id: string | undefined;
    source: SourceChoice;
    storedFields?: string[];
  }[] = [];
  if (body !== undefined && body !== null) {
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new EsError('parse_exception', 'failed to parse multi get request, expected an object');
    }
    for (const [key, value] of Object.entries(body)) {
      if (key === 'docs') {
        if (!Array.isArray(value)) throw unknownKey(key, value);
        for (const doc of value) parsed.push(parseDoc(doc, pathIndex, defaultSource, defaultStored));
      } else if (key === 'ids') {
        if (!Array.isArray(value)) throw unknownKey(key, value);
        for (const id of value) {
          parsed.push({
            index: pathIndex,
            id: idText(id, 'ids'),
            source: defaultSource,
            storedFields: defaultStored,
          });
        }
      } else {
        throw unknownKey(key, value);
      }
    }
  }
  const problems: string[] = [];
  if (parsed.length === 0) problems.push('no documents to get');
  parsed.forEach((item, i) => {
    if (item.index === undefined) problems.push(`index is missing for doc ${i}`);
    if (item.id === undefined) problems.push(`id is missing for doc ${i}`);
  });
  if (problems.length > 0) {
    throw new EsError(
      'action_request_validation_exception',
      `Validation Failed: ${problems.map((p, i) => `${i + 1}: ${p};`).join('')}`,
    );
  }
  return parsed as MgetRequestItem[];
}

function parseDoc(
  doc: unknown,
  pathIndex: string | undefined,
  defaultSource: SourceChoice,
  defaultStored: string[] | undefined,
): {
  index: string | undefined;
  id: string | undefined;
  source: SourceChoice;
  version?: ReadVersion;
  storedFields?: string[];
} {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new EsError('parse_exception', 'docs array element should include an object');
  }
  let index = pathIndex;
  let id: string | undefined;
  let source = defaultSource;
  let sourceGiven = false;
  let storedFields = defaultStored;
  const versioning: { version?: string; version_type?: string } = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!ITEM_KEYS.has(key)) {
      throw new EsError('parse_exception', `failed to parse multi get request. unknown field [${key}]`);
    }
    if (key === '_index') {
      if (typeof value !== 'string') throw badValue(key);
      index = value;
    } else if (key === '_id') {
      id = idText(value, key);
    } else if (key === '_source') {
      source = sourceChoice(value);
      sourceGiven = true;
    } else if (key === 'stored_fields') {
      if (typeof value === 'string') storedFields = storedFieldNames(value);
      else if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
        storedFields = storedFieldNames(value.join(','));
      else throw badValue(key);
    } else if (key === 'version' || key === 'version_type') {
      if (typeof value !== 'string' && typeof value !== 'number') throw badValue(key);
      versioning[key] = String(value);
    }
    // routing: accepted; one shard (docs/COVERAGE.md).
  }
  // An item's stored_fields without its own `_source` leaves `_source` out (MultiGetRequest.Item).
  if (storedFields !== undefined && storedFields !== defaultStored && !sourceGiven) source = undefined;
  // As GET's `version`/`version_type` (MultiGetRequest.Item reads them with GetRequest's rules).
  const version = parseReadVersion(versioning);
  return { index, id, source, storedFields, ...(version ? { version } : {}) };
}

/** `_source`: a boolean, a pattern or list of patterns, or `{includes, excludes}` (ES FetchSourceContext). */
function sourceChoice(value: unknown): SourceChoice {
  if (value === true) return { includes: [], excludes: [] };
  if (value === false) return undefined;
  if (typeof value === 'string' || Array.isArray(value)) return { includes: patterns(value), excludes: [] };
  if (value !== null && typeof value === 'object') {
    const out = { includes: [] as string[], excludes: [] as string[] };
    for (const [key, list] of Object.entries(value)) {
      if (key === 'includes' || key === 'include') out.includes = patterns(list);
      else if (key === 'excludes' || key === 'exclude') out.excludes = patterns(list);
      else throw new EsError('parse_exception', `Unknown key for a START_OBJECT in [${key}].`);
    }
    return out;
  }
  throw badValue('_source');
}

function patterns(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((p) => {
    if (typeof p !== 'string') throw badValue('_source');
    return p;
  });
}

/** ES reads an id with `parser.text()`: strings and numbers. */
function idText(value: unknown, key: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw badValue(key);
}

function badValue(key: string): EsError {
  return new EsError('parse_exception', `failed to parse multi get request. unexpected value for [${key}]`);
}

function unknownKey(key: string, value: unknown): EsError {
  const token = Array.isArray(value)
    ? 'START_ARRAY'
    : value !== null && typeof value === 'object'
      ? 'START_OBJECT'
      : 'VALUE';
  return new EsError('parse_exception', `unknown key [${key}] for a ${token}, expected [docs] or [ids]`);
}
