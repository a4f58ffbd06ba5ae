import { EsError, newDictionary } from '@acme/common';
import { denseVectorMappingError } from './check-dense-vector';
import { geoPointMappingError } from './check-geo-point';
import { FIELD_TYPES, type FieldType } from './field-types';
import type { DynamicSetting, FieldMapping, IndexMapping } from './mapping-types';
import { isKnownDateFormat } from './parse-date';
import { COMPLETION_PARAMETERS, completionDefaults, completionMappingError } from './completion-field';

const ROOT_PARAMETERS = new Set([
  'dynamic',
  'properties',
  'runtime',
  'date_detection',
  'numeric_detection',
  'dynamic_date_formats',
  'dynamic_templates',
  '_source',
  '_meta',
  '_routing',
  'enabled',
  'subobjects',
]);

const FIELD_PARAMETERS = new Set([
  'type',
  'index',
  'doc_values',
  'store',
  'fields',
  'copy_to',
  'null_value',
  'meta',
  'ignore_malformed',
  'ignore_z_value',
  'coerce',
  'boost',
  'analyzer',
  'search_analyzer',
  'search_quote_analyzer',
  'format',
  'locale',
  'ignore_above',
  'normalizer',
  'norms',
  'similarity',
  'term_vector',
  'index_options',
  'index_prefixes',
  'index_phrases',
  'eager_global_ordinals',
  'fielddata',
  'position_increment_gap',
  'split_queries_on_whitespace',
  'dims',
  'element_type',
  ...COMPLETION_PARAMETERS,
  'scaling_factor',
  'script',
  'on_script_error',
  'time_series_dimension',
  'time_series_metric',
  'depth_limit',
]);
const OBJECT_PARAMETERS = new Set(['type', 'properties', 'dynamic', 'enabled', 'subobjects']);
/** ES NestedObjectMapper.TypeParser: an object's parameters and where else its fields are indexed. */
const NESTED_PARAMETERS = new Set([
  'type',
  'properties',
  'dynamic',
  'enabled',
  'include_in_parent',
  'include_in_root',
]);

/**
 * Reads a mapping definition (PUT /<index> `mappings`, PUT /<index>/_mapping) into the typed mapping,
 * refusing what Elasticsearch refuses with `mapper_parsing_exception`: unknown types ("No handler for
 * type [foo] declared on field [bar]"), unknown parameters, bad `dynamic`, bad date formats, bad dims.
 */
export function parseMappingDefinition(input: unknown): IndexMapping {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw mappingError('Root mapping definition must be an object');
  }
  const root = input as Record<string, unknown>;
  const unsupported = Object.keys(root).filter((key) => !ROOT_PARAMETERS.has(key));
  if (unsupported.length > 0) {
    const listed = unsupported.map((key) => `${key} : ${describe(root[key])}`).join(', ');
    throw mappingError(`Root mapping definition has unsupported parameters:  [${listed}]`);
  }
  const mapping: IndexMapping = { ...(root as IndexMapping) };
  if (root.dynamic !== undefined) mapping.dynamic = parseDynamic(root.dynamic);
  if (root.properties !== undefined) mapping.properties = parseProperties(root.properties, '');
  return mapping;
}

function parseDynamic(value: unknown): DynamicSetting {
  const text = String(value);
  if (text === 'true' || text === 'false' || text === 'strict' || text === 'runtime') return text;
  throw mappingError(`Unable to parse [dynamic] with value [${text}]`);
}

function parseProperties(input: unknown, prefix: string): Record<string, FieldMapping> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw mappingError(
      `Expected map for property [properties] on field [${prefix || '_doc'}] but got a ${typeof input}`,
    );
  }
  // Field names are user strings (`__proto__`, `constructor` included): a dictionary without a prototype.
  const out = newDictionary<FieldMapping>();
  for (const [name, definition] of Object.entries(input as Record<string, unknown>)) {
    // ES ObjectMapper.TypeParser#validateFieldName (PUT /<index> wraps it: "Failed to parse mapping: …").
    if (name === '') throw mappingError('field name cannot be an empty string');
    out[name] = parseField(`${prefix}${name}`, name, definition);
  }
  return out;
}

function parseField(fullName: string, name: string, input: unknown): FieldMapping {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw mappingError(
      `Expected map for property [fields] on field [${name}] but got a class java.lang.String`,
    );
  }
  const definition = input as Record<string, unknown>;
  const type = definition.type;
  if (
    type !== undefined &&
    (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type))
  ) {
    throw mappingError(`No handler for type [${String(type)}] declared on field [${name}]`);
  }
  if (type === undefined || type === 'object' || type === 'nested')
    return parseObjectField(fullName, name, definition);
  const fieldType = type as FieldType;
  for (const key of Object.keys(definition)) {
    if (!FIELD_PARAMETERS.has(key)) {
      throw mappingError(`unknown parameter [${key}] on mapper [${fullName}] of type [${fieldType}]`);
    }
  }
  const field: FieldMapping = { ...definition, type: fieldType };
  if ((fieldType === 'date' || fieldType === 'date_nanos') && definition.format !== undefined) {
    if (typeof definition.format !== 'string' || !isKnownDateFormat(definition.format)) {
      throw mappingError(
        `Error parsing [format] on field [${name}]: Invalid format: [${String(definition.format)}]`,
      );
    }
  }
  const geoError = fieldType === 'geo_point' ? geoPointMappingError(name, definition) : undefined;
  if (geoError) throw mappingError(geoError);
  if (fieldType === 'completion') {
    const completionError = completionMappingError(fullName, definition);
    if (completionError) throw mappingError(completionError);
    Object.assign(field, completionDefaults(definition));
  }
  const vectorError =
    fieldType === 'dense_vector' ? denseVectorMappingError(fullName, definition) : undefined;
  if (vectorError) throw mappingError(vectorError);
  if (fieldType === 'dense_vector' && definition.dims !== undefined) {
    const dims = definition.dims;
    if (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1 || dims > 4096) {
      throw mappingError(
        `The number of dimensions should be in the range [1, 4096] but was [${String(dims)}]`,
      );
    }
  }
  if (definition.fields !== undefined) {
    const subFields = parseProperties(definition.fields, `${fullName}.`);
    for (const [subName, sub] of Object.entries(subFields)) {
      if (sub.properties !== undefined || sub.type === undefined || sub.type === 'object') {
        throw mappingError(`Type [object] cannot be used in multi field [${fullName}.${subName}]`);
      }
    }
    field.fields = subFields;
  }
  return field;
}

function parseObjectField(fullName: string, name: string, definition: Record<string, unknown>): FieldMapping {
  const nested = definition.type === 'nested';
  const allowed = nested ? NESTED_PARAMETERS : OBJECT_PARAMETERS;
  for (const key of Object.keys(definition)) {
    if (!allowed.has(key)) {
      throw mappingError(
        `unknown parameter [${key}] on mapper [${fullName}] of type [${nested ? 'nested' : 'object'}]`,
      );
    }
  }
  const field: FieldMapping = { properties: parseProperties(definition.properties ?? {}, `${fullName}.`) };
  if (nested) {
    field.type = 'nested';
    for (const key of ['include_in_parent', 'include_in_root'] as const) {
      if (definition[key] !== undefined) field[key] = parseBooleanParameter(definition[key]);
    }
  }
  if (definition.dynamic !== undefined) field.dynamic = parseDynamic(definition.dynamic);
  if (definition.enabled !== undefined) field.enabled = definition.enabled;
  void name;
  return field;
}

/** ES Booleans.parseBoolean: only true and false (as booleans or strings). */
function parseBooleanParameter(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw mappingError(`Failed to parse value [${String(value)}] as only [true] or [false] are allowed.`);
}

export function mappingError(reason: string): EsError {
  return new EsError('mapper_parsing_exception', reason);
}

/** The wrapper PUT /<index> puts around mapping errors (ES CreateIndex: "Failed to parse mapping: …"). */
export function wrapCreateIndexMappingError(error: EsError): EsError {
  const inner = error.toCause();
  return new EsError('mapper_parsing_exception', `Failed to parse mapping: ${error.reason}`, {
    causedBy: inner,
    rootCause: [inner],
  });
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${describe(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}
