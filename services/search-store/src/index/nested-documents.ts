import type { NestedPath } from '../mapping/nested-mapping';
import { valuesAtPath } from './indexed-fields';

/**
 * The nested objects of one document as Lucene's block join sees them (ES "Nested field type"): each
 * object at a nested path is a document of its own in the inverted index, right after the document
 * it belongs to, with the fields of its path (and of deeper nested paths that include themselves in
 * their parent). `offset` is the object's position among its siblings under the same parent object,
 * as ES prints it in `_nested.offset`.
 */
export interface NestedObject {
  path: string;
  offset: number;
  /** The index in the list of the nested object this one sits in; -1 for the root document. */
  parent: number;
  /** The object itself. */
  object: Record<string, unknown>;
  /** The object placed at its full path (`{comments: {votes: {…}}}`), so fields read it by their full path. */
  source: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The objects at `relative` under one parent object, in source order (arrays flattened, as ES reads them). */
export function objectsUnder(parent: unknown, relative: string): Record<string, unknown>[] {
  return valuesAtPath(parent, relative).filter(isObject);
}

function placed(path: string, object: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> = object;
  for (const name of path.split('.').reverse()) out = { [name]: out };
  return out;
}

/**
 * Every nested object of a source, parents before children, in the order ES indexes them. Bounded by
 * the document (mapDocument already refused more than `index.mapping.nested_objects.limit`).
 */
export function nestedObjectsOf(
  paths: readonly NestedPath[],
  source: Record<string, unknown>,
): NestedObject[] {
  const out: NestedObject[] = [];
  const visit = (scope: string, object: Record<string, unknown>, index: number): void => {
    for (const p of paths) {
      if (p.parent !== scope) continue;
      const relative = scope === '' ? p.path : p.path.slice(scope.length + 1);
      objectsUnder(object, relative).forEach((child, offset) => {
        out.push({ path: p.path, offset, parent: index, object: child, source: placed(p.path, child) });
        visit(p.path, child, out.length - 1);
      });
    }
  };
  visit('', source, -1);
  return out;
}

/** The object a `_nested` chain (outermost first) points at in a source, if it is still there. */
export function nestedObjectAt(
  source: Record<string, unknown>,
  chain: readonly { path: string; offset: number }[],
): Record<string, unknown> | undefined {
  let object: Record<string, unknown> | undefined = source;
  let scope = '';
  for (const { path, offset } of chain) {
    if (!object) return undefined;
    const relative: string = scope === '' ? path : path.slice(scope.length + 1);
    object = objectsUnder(object, relative)[offset];
    scope = path;
  }
  return object;
}
