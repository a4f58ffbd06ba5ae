import { copyDictionary, ownValue } from '@acme/common';

/**
 * A partial `doc` merged into the current source (ES XContentHelper#update): objects merge key by key
 * recursively, any other value (arrays included) replaces. Returns a new object; inputs are untouched.
 * Keys are the user's field names (`__proto__`, `constructor`): the copy has no prototype and is read
 * through Object.hasOwn.
 */
export function mergePartialDoc(
  current: Record<string, unknown>,
  partial: Record<string, unknown>,
): Record<string, unknown> {
  const out = copyDictionary(current);
  for (const [key, value] of Object.entries(partial)) {
    const before = ownValue(out, key);
    out[key] = isPlainObject(before) && isPlainObject(value) ? mergePartialDoc(before, value) : value;
  }
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values (`detect_noop`). */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => jsonEquals(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && jsonEquals(a[k], b[k]))
    );
  }
  return false;
}
