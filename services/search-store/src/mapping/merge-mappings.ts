import { isObjectMapping } from './nested-mapping';
import { copyDictionary, EsError, ownValue } from '@acme/common';
import type { FieldMapping, IndexMapping, RuntimeFieldMapping } from './mapping-types';

/** Parameters Elasticsearch lets a mapping update change on an existing field. */
const UPDATABLE = new Set([
  'fields',
  'ignore_above',
  'meta',
  'search_analyzer',
  'search_quote_analyzer',
  'boost',
  'ignore_malformed',
  'properties',
  'dynamic',
  'enabled',
  'dims',
]);

/**
 * PUT /<index>/_mapping is a merge (ES "Update mapping API"): new fields are added, existing fields keep
 * their type ("mapper [f] cannot be changed from type [long] to [keyword]") and their non-updatable
 * parameters, and nothing is ever removed. Root settings given in the update replace the old ones.
 */
export function mergeMappings(existing: IndexMapping, update: IndexMapping): IndexMapping {
  const merged: IndexMapping = { ...existing, ...update };
  merged.properties = mergeProperties(existing.properties ?? {}, update.properties ?? {}, '');
  if (Object.keys(merged.properties).length === 0 && existing.properties === undefined)
    delete merged.properties;
  if (existing.runtime || update.runtime) {
    const runtime = copyDictionary<RuntimeFieldMapping | null>(existing.runtime);
    for (const [name, value] of Object.entries(update.runtime ?? {})) runtime[name] = value;
    // A runtime field set to null is removed (ES "Runtime fields": "update or remove").
    for (const [name, value] of Object.entries(runtime)) if (value === null) delete runtime[name];
    merged.runtime = runtime as Record<string, RuntimeFieldMapping>;
  }
  return merged;
}

function mergeProperties(
  existing: Record<string, FieldMapping>,
  update: Record<string, FieldMapping>,
  prefix: string,
): Record<string, FieldMapping> {
  // Field names are user strings: a null-prototype copy, so `__proto__` or `constructor` stay keys.
  const out = copyDictionary(existing);
  for (const [name, incoming] of Object.entries(update)) {
    const current = ownValue(existing, name);
    out[name] = current ? mergeField(current, incoming, `${prefix}${name}`) : incoming;
  }
  return out;
}

function isObject(field: FieldMapping): boolean {
  return isObjectMapping(field);
}

function mergeField(current: FieldMapping, incoming: FieldMapping, fullName: string): FieldMapping {
  if (isObject(current) && isObject(incoming)) checkNestedMerge(current, incoming, fullName);
  if (isObject(current) !== isObject(incoming)) {
    if (isObject(current)) {
      throw new EsError(
        'illegal_argument_exception',
        `can't merge a non object mapping [${fullName}] with an object mapping`,
      );
    }
    throw new EsError(
      'illegal_argument_exception',
      `mapper [${fullName}] cannot be changed from type [${current.type}] to [ObjectMapper]`,
    );
  }
  if (isObject(current)) {
    const merged: FieldMapping = { ...current, ...incoming };
    merged.properties = mergeProperties(current.properties ?? {}, incoming.properties ?? {}, `${fullName}.`);
    return merged;
  }
  if (current.type !== incoming.type) {
    throw new EsError(
      'illegal_argument_exception',
      `mapper [${fullName}] cannot be changed from type [${current.type}] to [${incoming.type}]`,
    );
  }
  const conflicts: string[] = [];
  const keys = new Set([...Object.keys(current), ...Object.keys(incoming)]);
  for (const key of keys) {
    if (UPDATABLE.has(key) || key === 'type') continue;
    const before = ownValue(current, key);
    const after = ownValue(incoming, key);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      conflicts.push(`Cannot update parameter [${key}] from [${show(before)}] to [${show(after)}]`);
    }
  }
  if (conflicts.length > 0) {
    throw new EsError(
      'illegal_argument_exception',
      `Mapper for [${fullName}] conflicts with existing mapper:\n\t${conflicts.join('\n\t')}`,
    );
  }
  const merged: FieldMapping = { ...current, ...incoming };
  if (current.fields || incoming.fields) {
    merged.fields = mergeProperties(current.fields ?? {}, incoming.fields ?? {}, `${fullName}.`);
  }
  return merged;
}

/** ES ObjectMapper/NestedObjectMapper#merge: nested stays nested, and its include flags cannot change. */
function checkNestedMerge(current: FieldMapping, incoming: FieldMapping, fullName: string): void {
  const was = current.type === 'nested';
  const is = incoming.type === 'nested';
  if (was && !is) {
    throw new EsError(
      'illegal_argument_exception',
      `can't merge a non-nested mapping [${fullName}] with a nested mapping`,
    );
  }
  if (!was && is) {
    throw new EsError(
      'illegal_argument_exception',
      `can't merge a nested mapping [${fullName}] with a non-nested mapping`,
    );
  }
  for (const key of ['include_in_parent', 'include_in_root'] as const) {
    if (was && incoming[key] !== undefined && (current[key] ?? false) !== incoming[key]) {
      throw new EsError(
        'illegal_argument_exception',
        `the [${key}] parameter can't be updated on a nested object mapping`,
      );
    }
  }
}

function show(value: unknown): string {
  return value === undefined ? 'null' : typeof value === 'string' ? value : JSON.stringify(value);
}
