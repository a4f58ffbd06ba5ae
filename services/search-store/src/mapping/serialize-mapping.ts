import { newDictionary } from '@acme/common';
import type { FieldMapping, IndexMapping } from './mapping-types';

/**
 * The mapping as GET /<index>/_mapping prints it (ES ObjectMapper#toXContent): `dynamic` as a string,
 * properties sorted by name, objects without `type` unless they have no sub-fields (`{"type":"object"}`).
 */
export function serializeMapping(mapping: IndexMapping): Record<string, unknown> {
  const out = newDictionary<unknown>();
  for (const [key, value] of Object.entries(mapping)) {
    if (value === undefined) continue;
    if (key === 'dynamic') out.dynamic = String(value);
    else if (key === 'properties')
      out.properties = serializeProperties(value as Record<string, FieldMapping>);
    else if (key === 'runtime') out.runtime = sortKeys(value as Record<string, unknown>);
    else out[key] = value;
  }
  return out;
}

function serializeProperties(properties: Record<string, FieldMapping>): Record<string, unknown> {
  // Keyed by field names, which may be `__proto__`: no prototype, so assignment defines a key.
  const out = newDictionary<unknown>();
  for (const name of Object.keys(properties).sort()) {
    const field = properties[name];
    if (field) out[name] = serializeField(field);
  }
  return out;
}

function serializeField(field: FieldMapping): Record<string, unknown> {
  if (field.type === 'nested') {
    // ES NestedObjectMapper#toXContent: the type always, then its include flags when set, then the object's.
    const out = newDictionary<unknown>();
    out.type = 'nested';
    if (field.include_in_parent !== undefined) out.include_in_parent = field.include_in_parent;
    if (field.include_in_root !== undefined) out.include_in_root = field.include_in_root;
    if (field.dynamic !== undefined) out.dynamic = String(field.dynamic);
    if (field.enabled !== undefined) out.enabled = field.enabled;
    if (Object.keys(field.properties ?? {}).length > 0)
      out.properties = serializeProperties(field.properties ?? {});
    return out;
  }
  const isObject = field.type === undefined || field.type === 'object';
  if (isObject) {
    const out = newDictionary<unknown>();
    const hasChildren = Object.keys(field.properties ?? {}).length > 0;
    if (!hasChildren) out.type = 'object';
    if (field.dynamic !== undefined) out.dynamic = String(field.dynamic);
    if (field.enabled !== undefined) out.enabled = field.enabled;
    if (hasChildren) out.properties = serializeProperties(field.properties ?? {});
    return out;
  }
  const out = newDictionary<unknown>();
  for (const [key, value] of Object.entries(field)) {
    if (key === 'fields') out.fields = serializeProperties(value as Record<string, FieldMapping>);
    else if (value !== undefined) out[key] = value;
  }
  return out;
}

function sortKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, value[k]]),
  );
}
