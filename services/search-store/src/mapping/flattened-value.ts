/**
 * `flattened` fields (ES "Flattened field type"): a whole JSON object indexed as keyword leaves, each
 * leaf once under the root field and once under its dotted key (`labels.release`), as ES indexes the
 * root and `_keyed` terms. Both live in the root field's `kw` doc values: a root entry is the value
 * after SEPARATOR, a keyed entry `key SEPARATOR value`, so a key's values are one btree range.
 */
export const FLATTENED_SEPARATOR = '\u0001';
export const DEFAULT_DEPTH_LIMIT = 20;

/** The doc-value entry of a leaf under the root (key '') or under a key. */
export function flattenedEntry(key: string, value: string): string {
  return `${key}${FLATTENED_SEPARATOR}${value}`;
}

/** The entries' common start for the root's values (key '') or a key's. */
export function flattenedPrefix(key: string): string {
  return `${key}${FLATTENED_SEPARATOR}`;
}

/** The deepest object nesting in a value, the root object counting 1 (arrays add nothing). */
export function flattenedDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  // Iterative: a hostile document cannot overflow the call stack (the body size bounds the work).
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (Array.isArray(node)) {
      for (const item of node) stack.push([item, depth]);
    } else if (node !== null && typeof node === 'object') {
      deepest = Math.max(deepest, depth + 1);
      for (const child of Object.values(node as Record<string, unknown>)) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/**
 * The leaves of a flattened value as `[key, text]` (the key dotted from the root; numbers and
 * booleans as their JSON text; nulls skipped), leaves longer than `ignoreAbove` left out, as ES does.
 */
export function flattenedLeaves(value: unknown, ignoreAbove = Infinity): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [node, key] = stack.pop()!;
    if (node === null || node === undefined) continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], key]);
    } else if (typeof node === 'object') {
      const entries = Object.entries(node as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, child] = entries[i]!;
        stack.push([child, key === '' ? name : `${key}.${name}`]);
      }
    } else if (key !== '') {
      const text = String(node);
      if ([...text].length <= ignoreAbove) out.push([key, text]);
    }
  }
  return out;
}

/** The doc-value entries of one document's flattened values: every leaf under the root and its key. */
export function flattenedEntries(values: unknown[], ignoreAbove = Infinity): string[] {
  const entries = new Set<string>();
  for (const value of values) {
    for (const [key, text] of flattenedLeaves(value, ignoreAbove)) {
      entries.add(flattenedEntry('', text));
      entries.add(flattenedEntry(key, text));
    }
  }
  return [...entries].sort();
}
