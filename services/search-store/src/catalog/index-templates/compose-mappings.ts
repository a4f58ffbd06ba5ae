import { isObjectMapping } from '../../mapping/nested-mapping';
import { copyDictionary, newDictionary, ownValue } from '@acme/common';
import type { FieldMapping, IndexMapping, RuntimeFieldMapping } from '../../mapping/mapping-types';

/**
 * Merges mappings in precedence order, lowest first (component templates in `composed_of` order, the
 * index template's own, then the create request's), as ES merges them for a new index
 * (MapperService.MergeReason.INDEX_TEMPLATE): objects merge field by field, a later definition of a
 * leaf field replaces the earlier one whole (even with another type), and dotted names
 * (`"object1.red"`) are objects (`object1` → `red`) so they merge with the spelled-out form.
 */
export function composeMappings(mappings: readonly IndexMapping[]): IndexMapping {
  let out: IndexMapping = {};
  for (const mapping of mappings) out = composeTwo(out, mapping);
  return out;
}

function composeTwo(base: IndexMapping, top: IndexMapping): IndexMapping {
  const merged: IndexMapping = { ...base, ...top };
  if (base.properties || top.properties) {
    merged.properties = mergeProperties(expandDots(base.properties ?? {}), expandDots(top.properties ?? {}));
  }
  if (base.runtime || top.runtime) {
    const runtime = copyDictionary<RuntimeFieldMapping>(base.runtime);
    for (const [name, field] of Object.entries(top.runtime ?? {})) runtime[name] = field;
    merged.runtime = runtime;
  }
  return merged;
}

function isObjectField(field: FieldMapping): boolean {
  return isObjectMapping(field);
}

function mergeProperties(
  base: Record<string, FieldMapping>,
  top: Record<string, FieldMapping>,
): Record<string, FieldMapping> {
  // Field names are user strings (`__proto__` included): a dictionary without a prototype.
  const out = copyDictionary(base);
  for (const [name, field] of Object.entries(top)) {
    const current = ownValue(base, name);
    if (current && isObjectField(current) && isObjectField(field)) {
      const merged: FieldMapping = { ...current, ...field };
      merged.properties = mergeProperties(current.properties ?? {}, field.properties ?? {});
      out[name] = merged;
    } else {
      out[name] = field;
    }
  }
  return out;
}

/** `{"a.b": {...}}` → `{"a": {"properties": {"b": {...}}}}`, recursively, merging siblings. */
function expandDots(properties: Record<string, FieldMapping>): Record<string, FieldMapping> {
  let out = newDictionary<FieldMapping>();
  for (const [name, rawField] of Object.entries(properties)) {
    const field: FieldMapping =
      rawField.properties !== undefined
        ? { ...rawField, properties: expandDots(rawField.properties) }
        : rawField;
    const parts = name.split('.');
    if (parts.length === 1 || parts.some((part) => part === '')) {
      out = mergeProperties(out, singleton(name, field));
      continue;
    }
    let nested: FieldMapping = field;
    for (const part of parts.slice(1).reverse()) nested = { properties: singleton(part, nested) };
    out = mergeProperties(out, singleton(parts[0]!, nested));
  }
  return out;
}

function singleton(name: string, field: FieldMapping): Record<string, FieldMapping> {
  const out = newDictionary<FieldMapping>();
  out[name] = field;
  return out;
}
