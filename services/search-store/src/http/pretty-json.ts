/**
 * Serialises a value the way Elasticsearch prints `?pretty` (Jackson's DefaultPrettyPrinter with a
 * line-feed indenter for objects and arrays): two-space indent, `"key" : value`, `{ }` / `[ ]` when
 * empty, and a trailing newline.
 */
export function prettyJson(value: unknown): string {
  return `${printValue(value, '')}\n`;
}

function printValue(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[ ]';
    const inner = `${indent}  `;
    const items = value.map((item) => `${inner}${printValue(item === undefined ? null : item, inner)}`);
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{ }';
    const inner = `${indent}  `;
    const lines = entries.map(([key, v]) => `${inner}${JSON.stringify(key)} : ${printValue(v, inner)}`);
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
