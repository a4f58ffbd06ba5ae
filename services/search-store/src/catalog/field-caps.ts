import { EsError, newDictionary } from '@acme/common';
import type { FieldMapping, IndexMapping } from '../mapping/mapping-types';
import type { IndexRecord } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { simpleMatcher } from '../text/simple-match';
import { loadCatalog, resolveIndexExpression, type ResolveOptions } from './index-expression';

/** One field of one index as field caps sees it (ES `IndexFieldCapabilities`). */
interface IndexField {
  name: string;
  type: string;
  searchable: boolean;
  aggregatable: boolean;
  metadata: boolean;
  /** A multi-field (`title.keyword`): `filters=-multifield` leaves it out. */
  multiField: boolean;
  /** Under a `nested` object: `filters=-nested` leaves it out. */
  inNested: boolean;
  meta?: Record<string, unknown>;
}

/**
 * The metadata fields of an 8.17 index with their capabilities, as `_field_caps?fields=*` lists them
 * (each mapper's `MappedFieldType#isSearchable`/`isAggregatable`).
 */
const METADATA_FIELDS: readonly [string, boolean, boolean][] = [
  ['_data_stream_timestamp', false, false],
  ['_doc_count', false, false],
  ['_feature', true, false],
  ['_field_names', true, false],
  ['_id', true, false],
  ['_ignored', true, true],
  ['_index', true, true],
  ['_nested_path', true, false],
  ['_routing', true, false],
  ['_seq_no', true, true],
  ['_source', false, false],
  ['_tier', true, false],
  ['_version', false, true],
];

/**
 * Searchable and aggregatable by mapping type (ES 8 field mappers): text is searchable when indexed
 * and aggregatable only with fielddata; binary neither unless doc values are on; vectors are
 * searchable (dense when indexed), never aggregatable; objects neither. The doc-value types (keyword,
 * numbers, dates, booleans, and any type we do not name) are searchable when indexed or with doc
 * values (8.1's doc-value queries) and aggregatable with doc values.
 */
/** The mapping parameter (quoted: the index has a table of that name, test/unit/index-tables-layout). */
const DOC_VALUES = 'doc_values';

function capabilities(mapping: FieldMapping, type: string): { searchable: boolean; aggregatable: boolean } {
  const indexed = mapping.index !== false;
  switch (type) {
    case 'text':
    case 'match_only_text':
      return { searchable: indexed, aggregatable: mapping.fielddata === true };
    case 'binary':
      return { searchable: false, aggregatable: mapping[DOC_VALUES] === true };
    case 'dense_vector':
      return { searchable: indexed, aggregatable: false };
    case 'sparse_vector':
    case 'completion':
      return { searchable: true, aggregatable: false };
    case 'object':
    case 'nested':
      return { searchable: false, aggregatable: false };
    default: {
      const docValues = mapping[DOC_VALUES] !== false;
      return { searchable: indexed || docValues, aggregatable: docValues };
    }
  }
}

function metaOf(mapping: FieldMapping): Record<string, unknown> | undefined {
  const meta = mapping.meta;
  return typeof meta === 'object' && meta !== null && Object.keys(meta).length > 0
    ? (meta as Record<string, unknown>)
    : undefined;
}

/** Every field of a mapping: objects, leaves, multi-fields, runtime fields (which shadow the rest). */
function fieldsOf(mappings: IndexMapping, runtime: Record<string, unknown>): Map<string, IndexField> {
  const out = new Map<string, IndexField>();
  const walk = (properties: Record<string, FieldMapping> | undefined, prefix: string, inNested: boolean) => {
    for (const [name, field] of Object.entries(properties ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name;
      // A string: types other helpers add (nested, ip, …) pass through the same rules.
      const type: string = field.type ?? 'object';
      // A nested object is itself "nested" for `filters=-nested` (ES leaves out `level1` and its leaves).
      const nested = inNested || type === 'nested';
      const base = {
        name: path,
        type,
        metadata: false,
        multiField: false,
        inNested: nested,
        meta: metaOf(field),
      };
      out.set(path, { ...base, ...capabilities(field, type) });
      if (type === 'object' || type === 'nested' || field.properties) {
        walk(field.properties, path, nested);
        continue;
      }
      for (const [sub, subField] of Object.entries(field.fields ?? {})) {
        const subType = subField.type ?? 'object';
        out.set(`${path}.${sub}`, {
          name: `${path}.${sub}`,
          type: subType,
          metadata: false,
          multiField: true,
          inNested,
          meta: metaOf(subField),
          ...capabilities(subField, subType),
        });
      }
    }
  };
  walk(mappings.properties, '', false);
  // Runtime fields (the mapping's, then the request's) are searchable and aggregatable by script.
  for (const section of [mappings.runtime ?? {}, runtime]) {
    for (const [name, spec] of Object.entries(section)) {
      const type = (spec as { type?: unknown } | null)?.type;
      if (typeof type !== 'string') continue;
      out.set(name, {
        name,
        type,
        searchable: true,
        aggregatable: true,
        metadata: false,
        multiField: false,
        inNested: false,
      });
    }
  }
  for (const [name, searchable, aggregatable] of METADATA_FIELDS) {
    out.set(name, {
      name,
      type: name,
      searchable,
      aggregatable,
      metadata: true,
      multiField: false,
      inNested: false,
    });
  }
  return out;
}

export interface FieldCapsRequest {
  expression: string;
  resolve: ResolveOptions;
  fields: string[];
  includeUnmapped: boolean;
  filters: string[];
  types: string[];
  runtimeMappings: Record<string, unknown>;
}

/** At most this many field patterns in one request (each is matched against every field). */
const MAX_PATTERNS = 1_000;

/** The fields one index answers for the request (`FieldCapabilitiesFetcher`): matched, filtered, parents. */
function indexFields(index: IndexRecord, request: FieldCapsRequest): Map<string, IndexField> {
  const all = fieldsOf(index.mappings, request.runtimeMappings);
  const matchers = request.fields.map((f) => simpleMatcher(f));
  const filters = new Set(request.filters);
  const types = new Set(request.types);
  const keep = (field: IndexField) =>
    !(filters.has('+metadata') && !field.metadata) &&
    !(filters.has('-metadata') && field.metadata) &&
    !(filters.has('-multifield') && field.multiField) &&
    !(filters.has('-nested') && field.inNested) &&
    (types.size === 0 || types.has(field.type));
  const out = new Map<string, IndexField>();
  for (const field of all.values()) {
    if (!matchers.some((m) => m(field.name)) || !keep(field)) continue;
    out.set(field.name, field);
    if (filters.has('-parent')) continue;
    // ES adds the object (or nested) parents of a matched field, up to the root or a known parent.
    let dot = field.name.lastIndexOf('.');
    while (dot > -1) {
      const parent = field.name.slice(0, dot);
      const object = all.get(parent);
      if (out.has(parent) || !object || (object.type !== 'object' && object.type !== 'nested')) break;
      if (types.size === 0 || types.has(object.type)) out.set(parent, object);
      dot = parent.lastIndexOf('.');
    }
  }
  return out;
}

/**
 * ES "Field capabilities API": the fields matching the patterns across the indices an expression
 * names, by type, with ES's merge: `searchable`/`aggregatable` only when true in every index of the
 * type, the indices listed when the field has several types, the odd ones out listed when mixed.
 */
export async function fieldCaps(db: Queryable, request: FieldCapsRequest): Promise<Record<string, unknown>> {
  if (request.fields.length === 0 || request.fields.every((f) => f === '')) {
    throw new EsError(
      'action_request_validation_exception',
      "Validation Failed: 1: specified fields can't be null or empty;",
    );
  }
  if (request.fields.length > MAX_PATTERNS) {
    throw new EsError('illegal_argument_exception', `at most ${MAX_PATTERNS} field patterns are allowed`);
  }
  const indices = resolveIndexExpression(await loadCatalog(db), request.expression, request.resolve);
  // name → type → [index, field] (both orders sorted, as ES's response is).
  const byName = new Map<string, Map<string, [string, IndexField][]>>();
  for (const index of indices) {
    for (const field of indexFields(index, request).values()) {
      let types = byName.get(field.name);
      if (!types) byName.set(field.name, (types = new Map()));
      let list = types.get(field.type);
      if (!list) types.set(field.type, (list = []));
      list.push([index.name, field]);
    }
  }
  const fields = newDictionary<unknown>(); // keyed by field name
  for (const name of [...byName.keys()].sort()) {
    const types = byName.get(name)!;
    if (request.includeUnmapped) {
      const mapped = new Set([...types.values()].flat().map(([index]) => index));
      const unmapped = indices.map((i) => i.name).filter((n) => !mapped.has(n));
      if (unmapped.length > 0) {
        const field: IndexField = {
          name,
          type: 'unmapped',
          searchable: false,
          aggregatable: false,
          metadata: false,
          multiField: false,
          inNested: false,
        };
        types.set(
          'unmapped',
          unmapped.map((index) => [index, field]),
        );
      }
    }
    const entry = newDictionary<unknown>(); // keyed by type name
    for (const type of [...types.keys()].sort()) {
      entry[type] = mergeType(type, types.get(type)!, types.size > 1);
    }
    fields[name] = entry;
  }
  return { indices: indices.map((i) => i.name), fields };
}

/** One type of one field across its indices (ES `FieldCapabilities.Builder#build`). */
function mergeType(
  type: string,
  list: [string, IndexField][],
  withIndices: boolean,
): Record<string, unknown> {
  const searchable = list.every(([, f]) => f.searchable);
  const aggregatable = list.every(([, f]) => f.aggregatable);
  const out: Record<string, unknown> = {
    type,
    metadata_field: list.some(([, f]) => f.metadata),
    searchable,
    aggregatable,
  };
  if (withIndices) out.indices = list.map(([index]) => index);
  if (!searchable && list.some(([, f]) => f.searchable)) {
    out.non_searchable_indices = list.filter(([, f]) => !f.searchable).map(([index]) => index);
  }
  if (!aggregatable && list.some(([, f]) => f.aggregatable)) {
    out.non_aggregatable_indices = list.filter(([, f]) => !f.aggregatable).map(([index]) => index);
  }
  // `meta`: each key with the distinct values the indices give it.
  const meta = new Map<string, Set<string>>();
  for (const [, f] of list) {
    for (const [key, value] of Object.entries(f.meta ?? {})) {
      if (!meta.has(key)) meta.set(key, new Set());
      meta.get(key)!.add(String(value));
    }
  }
  if (meta.size > 0) {
    const view = newDictionary<string[]>();
    for (const key of [...meta.keys()].sort()) view[key] = [...meta.get(key)!].sort();
    out.meta = view;
  }
  return out;
}
