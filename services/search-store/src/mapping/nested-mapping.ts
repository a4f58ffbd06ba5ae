import type { FieldMapping, IndexMapping } from './mapping-types';

/**
 * The `nested` field type (ES "Nested field type"): an object whose array items are indexed as
 * separate hidden documents, so that a `nested` query matches fields of one and the same item.
 * Here, as in Lucene, each item is its own document in the inverted index (a doc key of its own),
 * while the document store keeps one row per document (index/nested-documents.ts).
 */

/** Objects and nested objects: mappings that hold `properties` instead of a value. */
export function isObjectMapping(field: FieldMapping): boolean {
  return field.type === undefined || field.type === 'object' || field.type === 'nested';
}

export function isNestedMapping(field: FieldMapping | undefined): boolean {
  return field?.type === 'nested';
}

/** A nested object path of a mapping, with the nested path it sits in ('' for the root document). */
export interface NestedPath {
  path: string;
  parent: string;
  includeInParent: boolean;
  includeInRoot: boolean;
}

/** Every nested path of a mapping, parents before their children (path order). */
export function listNestedPaths(mapping: IndexMapping): NestedPath[] {
  const out: NestedPath[] = [];
  const walk = (props: Record<string, FieldMapping> | undefined, prefix: string, parent: string): void => {
    for (const [name, field] of Object.entries(props ?? {})) {
      if (!isObjectMapping(field)) continue;
      const path = `${prefix}${name}`;
      if (field.type === 'nested') {
        out.push({
          path,
          parent,
          includeInParent: field.include_in_parent === true || field.include_in_parent === 'true',
          includeInRoot: field.include_in_root === true || field.include_in_root === 'true',
        });
        walk(field.properties, `${path}.`, path);
      } else walk(field.properties, `${path}.`, parent);
    }
  };
  walk(mapping.properties, '', '');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The mapping of an object or nested object at a dotted path, if there is one. */
export function objectMappingAt(mapping: IndexMapping, path: string): FieldMapping | undefined {
  let props = mapping.properties;
  let found: FieldMapping | undefined;
  const parts = path.split('.');
  // Mapped names may hold dots themselves only through `properties`; walk one name at a time.
  for (const part of parts) {
    found = props && Object.hasOwn(props, part) ? props[part] : undefined;
    if (!found) return undefined;
    props = found.properties;
  }
  return found && isObjectMapping(found) ? found : undefined;
}

/**
 * The nested scopes ('' = the root document, else a nested path) whose documents index a field whose
 * nearest nested object is `nested`: that object's own documents, and with `include_in_parent` its
 * parent's, with `include_in_root` the root's (ES NestedObjectMapper; Lucene adds the fields to those
 * documents too).
 */
export function scopesOf(nested: string, paths: readonly NestedPath[]): string[] {
  if (nested === '') return [''];
  const info = paths.find((p) => p.path === nested);
  const scopes = [nested];
  if (!info) return scopes;
  if (info.includeInParent && !scopes.includes(info.parent)) scopes.push(info.parent);
  if (info.includeInRoot && !scopes.includes('')) scopes.push('');
  return scopes;
}

/** The nearest nested path above a field path ('' when none). */
export function nearestNestedPath(fieldPath: string, paths: readonly NestedPath[]): string {
  let best = '';
  for (const p of paths) if (fieldPath.startsWith(`${p.path}.`) && p.path.length > best.length) best = p.path;
  return best;
}
