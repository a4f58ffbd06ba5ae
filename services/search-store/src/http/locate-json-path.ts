import { lineCol } from './parse-json-text';

/**
 * Finds where the value at `path` starts in a JSON text (1-based line and column, as Jackson's token
 * location in Elasticsearch's `[line:col]` error prefixes). The text is already known to be valid JSON.
 */
export function locateJsonPath(
  text: string,
  path: (string | number)[],
): { line: number; col: number } | undefined {
  const scanner = new Scanner(text, path);
  try {
    scanner.value([]);
  } catch (found) {
    if (found instanceof Found) return lineCol(text, found.offset);
    throw found;
  }
  return undefined;
}

class Found {
  constructor(readonly offset: number) {}
}

class Scanner {
  private pos = 0;
  constructor(
    private readonly text: string,
    private readonly target: (string | number)[],
  ) {}

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] ?? '')) this.pos += 1;
  }

  private isTarget(path: (string | number)[]): boolean {
    return path.length === this.target.length && path.every((p, i) => p === this.target[i]);
  }

  value(path: (string | number)[]): void {
    this.skipSpace();
    if (this.isTarget(path)) throw new Found(this.pos);
    const c = this.text[this.pos];
    if (c === '{') return this.object(path);
    if (c === '[') return this.array(path);
    if (c === '"') return void this.string();
    while (this.pos < this.text.length && !/[\s,}\]]/.test(this.text[this.pos] ?? '')) this.pos += 1;
  }

  private string(): string {
    const start = this.pos;
    this.pos += 1;
    while (this.pos < this.text.length && this.text[this.pos] !== '"') {
      if (this.text[this.pos] === '\\') this.pos += 1;
      this.pos += 1;
    }
    this.pos += 1;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }

  private object(path: (string | number)[]): void {
    this.pos += 1;
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] === '}') return void (this.pos += 1);
      if (this.text[this.pos] === ',') this.pos += 1;
      this.skipSpace();
      if (this.text[this.pos] === '}') return void (this.pos += 1);
      const key = this.string();
      this.skipSpace();
      this.pos += 1; // ':'
      this.value([...path, key]);
      if (this.pos >= this.text.length) return;
    }
  }

  private array(path: (string | number)[]): void {
    this.pos += 1;
    let index = 0;
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] === ']') return void (this.pos += 1);
      if (this.text[this.pos] === ',') this.pos += 1;
      this.skipSpace();
      if (this.text[this.pos] === ']') return void (this.pos += 1);
      this.value([...path, index]);
      index += 1;
      if (this.pos >= this.text.length) return;
    }
  }
}

/** A `Locate` for mapDocument over one JSON text (a request body, a bulk source line). */
export function locatorFor(text: string | undefined, base: (string | number)[] = []) {
  return (path: (string | number)[]): string => {
    if (text === undefined) return '';
    const at = locateJsonPath(text, [...base, ...path]);
    return at ? `[${at.line}:${at.col}] ` : '';
  };
}

/**
 * The text of the JSON number at `path` and where its token ends (for mapDocument's exact long
 * range check and previews), or undefined when the value there is not a number.
 */
export function rawNumberFor(text: string | undefined, base: (string | number)[] = []) {
  return (path: (string | number)[]): { text: string; line: number; col: number } | undefined => {
    if (text === undefined) return undefined;
    const scanner = new Scanner(text, [...base, ...path]);
    let start: number | undefined;
    try {
      scanner.value([]);
    } catch (found) {
      if (!(found instanceof Found)) throw found;
      start = found.offset;
    }
    if (start === undefined) return undefined;
    const token = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(start, start + 1100));
    if (!token) return undefined;
    const end = start + token[0].length;
    return { text: token[0], ...lineCol(text, end) };
  };
}
