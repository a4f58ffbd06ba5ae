import { EsError } from '@acme/common';
import { locationOf } from './json-locations';

/** `collapse` (ES CollapseBuilder): the field, its inner_hits (bodies parsed later) and the search limit. */
export interface CollapseRequest {
  field: string;
  innerHits: CollapseInnerHits[];
  maxConcurrentGroupSearches?: number;
}

/** One inner_hits section of collapse (ES InnerHitBuilder): its name and its search options. */
export interface CollapseInnerHits {
  name: string;
  /** The options as a search body (from, size, sort, _source, fields, version, …). */
  body: Record<string, unknown>;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function at(parent: object, key: string): string {
  const l = locationOf(parent, key);
  return `[${l?.line ?? 1}:${l?.col ?? 1}]`;
}

/** InnerHitBuilder's fields that a search body also has; `name`, `from` and `size` default as ES. */
const INNER_HIT_KEYS = new Set([
  'name',
  'from',
  'size',
  'sort',
  '_source',
  'fields',
  'docvalue_fields',
  'version',
  'seq_no_primary_term',
  'explain',
  'track_scores',
  'highlight',
  'ignore_unmapped',
]);
/** InnerHitBuilder's default size. */
const DEFAULT_INNER_SIZE = 3;

function parseInnerHits(spec: unknown, parent: Json, key: string, field: string): CollapseInnerHits {
  if (!isObject(spec))
    throw new EsError(
      'x_content_parse_exception',
      `${at(parent, key)} [collapse] inner_hits doesn't support values of type: ${typeof spec}`,
    );
  for (const k of Object.keys(spec)) {
    if (!INNER_HIT_KEYS.has(k))
      throw new EsError('x_content_parse_exception', `${at(spec, k)} [inner_hits] unknown field [${k}]`);
  }
  const { name, ignore_unmapped: _ignored, ...body } = spec;
  void _ignored;
  return {
    name: typeof name === 'string' ? name : field,
    body: { size: DEFAULT_INNER_SIZE, ...body },
  };
}

/** `collapse` as CollapseBuilder's ObjectParser reads it. */
export function parseCollapse(body: Json): CollapseRequest {
  const spec = body.collapse;
  if (!isObject(spec))
    throw new EsError(
      'x_content_parse_exception',
      `${at(body, 'collapse')} [collapse] collapse doesn't support values of type: ${Array.isArray(spec) ? 'START_ARRAY' : 'VALUE'}`,
    );
  let field: string | undefined;
  let innerHits: CollapseInnerHits[] = [];
  let maxConcurrentGroupSearches: number | undefined;
  for (const [key, v] of Object.entries(spec)) {
    if (key === 'field' && typeof v === 'string') field = v;
    else if (key === 'inner_hits') {
      innerHits = Array.isArray(v)
        ? v.map((entry) => parseInnerHits(entry, spec, key, String(spec.field)))
        : [parseInnerHits(v, spec, key, String(spec.field))];
    } else if (key === 'max_concurrent_group_searches' && typeof v === 'number' && Number.isInteger(v)) {
      // ES runs the inner_hits searches at most this many at a time; they run one by one here.
      if (v < 1)
        throw new EsError('illegal_argument_exception', 'maxConcurrentGroupRequests must be positive');
      maxConcurrentGroupSearches = v;
    } else if (key === 'field' || key === 'max_concurrent_group_searches') {
      throw new EsError(
        'x_content_parse_exception',
        `${at(spec, key)} [collapse] failed to parse field [${key}]`,
      );
    } else {
      throw new EsError('x_content_parse_exception', `${at(spec, key)} [collapse] unknown field [${key}]`);
    }
  }
  if (field === undefined) throw new EsError('illegal_argument_exception', 'field must be non-null');
  const names = new Set<string>();
  for (const inner of innerHits) {
    if (names.has(inner.name))
      throw new EsError(
        'illegal_argument_exception',
        `[inner_hits] already contains an entry for key [${inner.name}]`,
      );
    names.add(inner.name);
  }
  return {
    field,
    innerHits,
    ...(maxConcurrentGroupSearches === undefined ? {} : { maxConcurrentGroupSearches }),
  };
}
