import { EsError } from '@acme/common';

/** Where a key's value starts in the request body: Elasticsearch reports `line`/`col` for DSL errors. */
export interface Location {
  line: number;
  col: number;
}

const MAX_NESTING_DEPTH = 1000;

const locations = new WeakMap<object, Map<string, Location>>();

export function locationOf(object: object, key: string): Location | undefined {
  return locations.get(object)?.get(key);
}

/**
 * JSON.parse with positions: a small recursive-descent parser that records, for every object, where each
 * key's value starts. Syntax errors become x_content_parse_exception, a truncated body
 * x_content_e_o_f_exception (API-NOTES §A1.2), with `[line:col]` as Elasticsearch prints it.
 */
export function parseJsonWithLocations(text: string): unknown {
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const here = (): Location => ({ line, col: i - lineStart + 1 });
  const fail = (what: string): never => {
    const at = here();
    if (i >= text.length) {
      throw new EsError(
        'x_content_e_o_f_exception',
        `[${at.line}:${at.col}] Unexpected end-of-input: ${what}`,
      );
    }
    const ch = text[i]!;
    throw new EsError(
      'x_content_parse_exception',
      `[${at.line}:${at.col}] Unexpected character ('${ch}' (code ${ch.charCodeAt(0)})): ${what}`,
    );
  };
  const skip = (): void => {
    while (i < text.length) {
      const ch = text[i];
      if (ch === '\n') {
        line += 1;
        lineStart = i + 1;
      } else if (ch !== ' ' && ch !== '\t' && ch !== '\r') return;
      i += 1;
    }
  };
  const value = (): unknown => {
    skip();
    const ch = text[i];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"') return string();
    const literal = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
      text.slice(i, i + 400),
    );
    if (!literal)
      return fail(
        "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
      );
    i += literal[0].length;
    return JSON.parse(literal[0]) as unknown;
  };
  const string = (): string => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('was expecting closing quote for a string value');
    i += 1;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      i = start;
      return fail('invalid string escape');
    }
  };
  // Jackson's StreamReadConstraints (what ES parses with) stops at 1,000 levels; so do we, before the stack does.
  let nesting = 0;
  const enter = (): void => {
    nesting += 1;
    if (nesting > MAX_NESTING_DEPTH) {
      const at = here();
      throw new EsError(
        'x_content_parse_exception',
        `[${at.line}:${at.col}] Document nesting depth (${nesting}) exceeds the maximum allowed (${MAX_NESTING_DEPTH}, from \`StreamReadConstraints.getMaxNestingDepth()\`)`,
      );
    }
  };
  const object = (): Record<string, unknown> => {
    enter();
    // Object.prototype on purpose, as JSON.parse (the other body reader) gives: ES-style messages
    // stringify body values (`String(null-prototype)` throws), `__proto__` is defined as an own key
    // below, and the parsers read keys with Object.hasOwn/ownValue.
    // eslint-disable-next-line no-restricted-syntax
    const out: Record<string, unknown> = {};
    const where = new Map<string, Location>();
    locations.set(out, where);
    i += 1;
    skip();
    if (text[i] === '}') {
      i += 1;
      nesting -= 1;
      return out;
    }
    for (;;) {
      skip();
      if (text[i] !== '"') fail('was expecting double-quote to start field name');
      const key = string();
      skip();
      if (text[i] !== ':') fail('was expecting a colon to separate field name and value');
      i += 1;
      skip();
      where.set(key, here());
      // As JSON.parse does: `__proto__` is an own key like any other (assigned, it would set the prototype).
      if (key === '__proto__')
        Object.defineProperty(out, key, {
          value: value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[key] = value();
      skip();
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === '}') {
        i += 1;
        nesting -= 1;
        return out;
      }
      fail('was expecting comma to separate Object entries');
    }
  };
  const array = (): unknown[] => {
    enter();
    const out: unknown[] = [];
    i += 1;
    skip();
    if (text[i] === ']') {
      i += 1;
      nesting -= 1;
      return out;
    }
    for (;;) {
      out.push(value());
      skip();
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === ']') {
        i += 1;
        nesting -= 1;
        return out;
      }
      fail('was expecting comma to separate Array entries');
    }
  };
  skip();
  if (i >= text.length) return undefined;
  const result = value();
  skip();
  if (i < text.length) fail('expected end of content');
  return result;
}
