/**
 * A JSON text embedded as-is in a response, as Elasticsearch embeds `_source` byte for byte (key order,
 * integer-like keys and whitespace as indexed). `toJSON` gives the parsed value wherever the response
 * must be re-printed (`?pretty`, `?filter_path`).
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text) as unknown;
  }
}

/** JSON.stringify that splices RawJson texts in unchanged. */
export function stringifyWithRaw(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, parsed: unknown) {
    const original = key === '' && !(key in this) ? value : this[key];
    if (original instanceof RawJson) {
      raws.push(original.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return parsed;
  });
  if (raws.length === 0) return text;
  return text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_match, index: string) => raws[Number(index)] ?? 'null');
}
