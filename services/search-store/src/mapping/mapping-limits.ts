import { EsError, ownValue } from '@acme/common';
import { isObjectMapping, listNestedPaths } from './nested-mapping';
import type { FieldMapping, IndexMapping } from './mapping-types';

/**
 * The mapping limits of ES "Mapping limit settings" (`index.mapping.*.limit`), read per index. ES
 * checks them on every mapping change (`MappingLookup.checkLimits`: total fields, object depth, field
 * name length, in that order) and eagerly while a document adds fields dynamically
 * (`DocumentParserContext.addDynamicMapper`).
 */
export interface MappingLimits {
  totalFields: number;
  depth: number;
  fieldNameLength: number;
  /** `index.mapping.total_fields.ignore_dynamic_beyond_limit` (8.13+): new fields past the limit are left unmapped. */
  ignoreDynamicBeyondLimit: boolean;
  /** `index.mapping.nested_fields.limit`: distinct nested mappings of an index. */
  nestedFields: number;
  /** `index.mapping.nested_objects.limit`: nested objects (all paths) in one document. */
  nestedObjects: number;
}

export const DEFAULT_MAPPING_LIMITS: MappingLimits = {
  totalFields: 1000,
  depth: 20,
  fieldNameLength: Number.MAX_SAFE_INTEGER, // Long.MAX_VALUE: no limit
  ignoreDynamicBeyondLimit: false,
  nestedFields: 50,
  nestedObjects: 10000,
};

/** Each limit setting with its minimum (`Setting.longSetting(key, default, min)` in IndexSettings/MapperService). */
export const MAPPING_LIMIT_SETTINGS = {
  'index.mapping.total_fields.limit': 0,
  'index.mapping.depth.limit': 1,
  'index.mapping.field_name_length.limit': 1,
  'index.mapping.nested_fields.limit': 0,
  'index.mapping.nested_objects.limit': 0,
} as const satisfies Record<string, number>;

export function mappingLimitsOf(settings: Record<string, string>): MappingLimits {
  const read = (key: string, fallback: number) => {
    const value = ownValue(settings, key);
    return value === undefined || value === '' ? fallback : Number(value);
  };
  return {
    totalFields: read('index.mapping.total_fields.limit', DEFAULT_MAPPING_LIMITS.totalFields),
    depth: read('index.mapping.depth.limit', DEFAULT_MAPPING_LIMITS.depth),
    fieldNameLength: read('index.mapping.field_name_length.limit', DEFAULT_MAPPING_LIMITS.fieldNameLength),
    ignoreDynamicBeyondLimit: settings['index.mapping.total_fields.ignore_dynamic_beyond_limit'] === 'true',
    nestedFields: read('index.mapping.nested_fields.limit', DEFAULT_MAPPING_LIMITS.nestedFields),
    nestedObjects: read('index.mapping.nested_objects.limit', DEFAULT_MAPPING_LIMITS.nestedObjects),
  };
}

/** ES `Setting.parseLong`: an integer no smaller than the setting's minimum. */
export function checkMappingLimitSetting(key: string, value: string): void {
  const min = ownValue<number>(MAPPING_LIMIT_SETTINGS, key);
  if (min === undefined) return;
  if (!/^-?\d+$/.test(value.trim())) {
    throw new EsError('illegal_argument_exception', `Failed to parse value [${value}] for setting [${key}]`);
  }
  if (Number(value) < min) {
    throw new EsError(
      'illegal_argument_exception',
      `Failed to parse value [${value}] for setting [${key}] must be >= ${min}`,
    );
  }
}

function isObjectField(field: FieldMapping): boolean {
  return isObjectMapping(field);
}

/** Mappers a field counts for: an object 1 plus its children, a leaf 1 plus its multi-fields. */
export function countFieldMappers(field: FieldMapping): number {
  if (isObjectField(field)) {
    return 1 + Object.values(field.properties ?? {}).reduce((n, f) => n + countFieldMappers(f), 0);
  }
  return 1 + Object.keys(field.fields ?? {}).length;
}

/** `MappingLookup.checkFieldLimit`: field and object mappers (multi-fields included) plus runtime fields. */
export function countTotalFields(mapping: IndexMapping): number {
  const mapped = Object.values(mapping.properties ?? {}).reduce((n, f) => n + countFieldMappers(f), 0);
  return mapped + Object.keys(mapping.runtime ?? {}).length;
}

export function totalFieldsExceeded(limit: number, added?: number): string {
  return `Limit of total fields [${limit}] has been exceeded${added !== undefined && added > 0 ? ` while adding new fields [${added}]` : ''}`;
}

/** `MappingLookup.checkObjectDepthLimit`: an object at `path` sits at depth dots + 2. */
export function checkObjectDepth(limit: number, path: string): void {
  const depth = path.split('.').length + 1;
  if (depth > limit) {
    throw new EsError(
      'illegal_argument_exception',
      `Limit of mapping depth [${limit}] has been exceeded due to object field [${path}]`,
    );
  }
}

/**
 * Checks a whole mapping as ES does after every merge (PUT mapping, create index, dynamic update):
 * 400 `illegal_argument_exception` with ES's reasons.
 */
export function checkMappingLimits(mapping: IndexMapping, limits: MappingLimits): void {
  if (countTotalFields(mapping) > limits.totalFields) {
    throw new EsError('illegal_argument_exception', totalFieldsExceeded(limits.totalFields));
  }
  const objects: [string, string][] = [];
  const leaves: string[] = [];
  const walk = (props: Record<string, FieldMapping>, prefix: string) => {
    for (const [name, field] of Object.entries(props)) {
      const path = `${prefix}${name}`;
      if (isObjectField(field)) {
        objects.push([path, name]);
        walk(field.properties ?? {}, `${path}.`);
      } else {
        leaves.push(name, ...Object.keys(field.fields ?? {}));
      }
    }
  };
  walk(mapping.properties ?? {}, '');
  for (const [path] of objects) checkObjectDepth(limits.depth, path);
  checkFieldNameLengths([...objects.map(([, name]) => name), ...leaves], limits.fieldNameLength);
  // MappingLookup.checkNestedLimit, last of the checks.
  if (listNestedPaths(mapping).length > limits.nestedFields) {
    throw new EsError(
      'illegal_argument_exception',
      `Limit of nested fields [${limits.nestedFields}] has been exceeded`,
    );
  }
}

/** `MappingLookup.checkFieldNameLengthLimit`: object names first, then fields (leaf names, not paths). */
function checkFieldNameLengths(names: string[], limit: number): void {
  for (const name of names) {
    if (name.length > limit) {
      throw new EsError(
        'illegal_argument_exception',
        `Field name [${name}] is longer than the limit of [${limit}] characters`,
      );
    }
  }
}
