import { EsError } from '@acme/common';

/**
 * Parses one JSON text with Elasticsearch's errors: a body that ends early is
 * `x_content_e_o_f_exception` (ES ≥ 8.15, elastic/elasticsearch#111542), any other syntax error
 * `x_content_parse_exception`; both 400 and prefixed with `[line:col]`.
 */
export function parseJsonText(text: string): unknown {
  checkNestingDepth(text);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/end of (JSON|data)|Unterminated string|Unexpected end/i.test(message) || isTruncated(text)) {
      const { line, col } = lineCol(text, text.length);
      throw new EsError(
        'x_content_e_o_f_exception',
        `[${line}:${col}] Unexpected end-of-input: expected close marker for ${openContainer(text)}`,
      );
    }
    const position = /position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : 0;
    const { line, col } = lineCol(text, offset);
    const cleaned = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    throw new EsError('x_content_parse_exception', `[${line}:${col}] ${cleaned}`);
  }
}

/** 1-based line and column of a UTF-16 offset, as Jackson reports token locations. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i += 1) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart + 1 };
}

/** True when every bracket opened is still open at the end (the text was cut off). */
function isTruncated(text: string): boolean {
  return openContainer(text) !== 'none';
}

function openContainer(text: string): 'Object' | 'Array' | 'none' {
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c);
    else if (c === '}' || c === ']') stack.pop();
  }
  const top = stack[stack.length - 1];
  return top === '{' ? 'Object' : top === '[' ? 'Array' : 'none';
}

/**
 * Jackson's StreamReadConstraints (Elasticsearch 8) refuse a document nested deeper than 1000 levels; past
 * that our recursive walkers would exhaust the stack, so depth bombs end here as a 400.
 */
export const MAX_NESTING_DEPTH = 1000;

function checkNestingDepth(text: string): void {
  // A text cannot nest deeper than it has opening brackets: counting those with indexOf (native) up
  // to the limit is several times cheaper than the scan below, which took longer than JSON.parse on
  // bulk source lines (issue 23).
  if (openings(text, '{', openings(text, '[', 0)) <= MAX_NESTING_DEPTH) return;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i += 1; // backslash
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth += 1;
      if (depth > MAX_NESTING_DEPTH) {
        const { line, col } = lineCol(text, i);
        throw new EsError(
          'x_content_parse_exception',
          `[${line}:${col}] Document nesting depth (${depth}) exceeds the maximum allowed (${MAX_NESTING_DEPTH}, from \`StreamReadConstraints.getMaxNestingDepth()\`)`,
        );
      }
    } else if (c === 125 || c === 93) depth -= 1;
  }
}

/** `count` plus the occurrences of `bracket` in `text`, counted only until the sum passes MAX_NESTING_DEPTH. */
function openings(text: string, bracket: string, count: number): number {
  for (
    let at = text.indexOf(bracket);
    at !== -1 && count <= MAX_NESTING_DEPTH;
    at = text.indexOf(bracket, at + 1)
  )
    count += 1;
  return count;
}
