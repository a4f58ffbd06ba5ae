/**
 * Lucene's RegExp syntax (org.apache.lucene.util.automaton.RegExp, the grammar the ES regexp query
 * documents) parsed into a tree, with Lucene's error messages (IllegalArgumentException texts).
 * The parser is recursive descent over the pattern, one pass, so it is linear in the pattern's
 * length; `index.max_regex_length` (checked by the caller) bounds the recursion depth.
 *
 * Syntax flags, as Lucene numbers them (ES `flags` names them; ALL = 0xff, NONE = 0): the optional
 * operators are reserved characters only when their flag is on, otherwise they match themselves.
 */
export const REGEXP_FLAGS = {
  INTERSECTION: 0x01,
  COMPLEMENT: 0x02,
  EMPTY: 0x04,
  ANYSTRING: 0x08,
  AUTOMATON: 0x10,
  INTERVAL: 0x20,
  ALL: 0xff,
  NONE: 0,
} as const;

export type RegexpNode =
  | { type: 'union' | 'concat' | 'intersection'; a: RegexpNode; b: RegexpNode }
  | { type: 'repeat'; a: RegexpNode; min: number; max: number /* -1: unbounded */ }
  | { type: 'complement'; a: RegexpNode }
  | { type: 'ranges'; ranges: [number, number][] }
  | { type: 'string'; codePoints: number[] }
  | { type: 'anyString' }
  | { type: 'emptyLanguage' }
  | { type: 'interval'; min: number; max: number; digits: number };

export class RegexpSyntaxError extends Error {}

const MAX_CODE_POINT = 0x10ffff;
const ANY_CHAR: RegexpNode = { type: 'ranges', ranges: [[0, MAX_CODE_POINT]] };

/** Lucene's predefined classes (RegExp.expandPredefined). */
const PREDEFINED: Record<string, { ranges: [number, number][]; negate: boolean }> = {
  d: { ranges: [[0x30, 0x39]], negate: false },
  D: { ranges: [[0x30, 0x39]], negate: true },
  s: {
    ranges: [
      [0x09, 0x0a],
      [0x0d, 0x0d],
      [0x20, 0x20],
    ],
    negate: false,
  },
  S: {
    ranges: [
      [0x09, 0x0a],
      [0x0d, 0x0d],
      [0x20, 0x20],
    ],
    negate: true,
  },
  w: {
    ranges: [
      [0x30, 0x39],
      [0x41, 0x5a],
      [0x5f, 0x5f],
      [0x61, 0x7a],
    ],
    negate: false,
  },
  W: {
    ranges: [
      [0x30, 0x39],
      [0x41, 0x5a],
      [0x5f, 0x5f],
      [0x61, 0x7a],
    ],
    negate: true,
  },
};

export function parseRegexp(pattern: string, flags: number): RegexpNode {
  return new Parser(pattern, flags).parse();
}

class Parser {
  private pos = 0;

  constructor(
    private readonly s: string,
    private readonly flags: number,
  ) {}

  parse(): RegexpNode {
    if (this.s.length === 0) return { type: 'string', codePoints: [] };
    const e = this.unionExp();
    if (this.pos < this.s.length)
      throw new RegexpSyntaxError(`end-of-string expected at position ${this.pos}`);
    return e;
  }

  private check(flag: number): boolean {
    return (this.flags & flag) !== 0;
  }

  private more(): boolean {
    return this.pos < this.s.length;
  }

  private peek(chars: string): boolean {
    return this.more() && chars.includes(String.fromCodePoint(this.s.codePointAt(this.pos)!));
  }

  private match(c: string): boolean {
    if (this.more() && this.s.codePointAt(this.pos) === c.codePointAt(0)) {
      this.pos += c.length;
      return true;
    }
    return false;
  }

  private next(): number {
    if (!this.more()) throw new RegexpSyntaxError('unexpected end-of-string');
    const c = this.s.codePointAt(this.pos)!;
    this.pos += c > 0xffff ? 2 : 1;
    return c;
  }

  private unionExp(): RegexpNode {
    const e = this.interExp();
    return this.match('|') ? { type: 'union', a: e, b: this.unionExp() } : e;
  }

  private interExp(): RegexpNode {
    const e = this.concatExp();
    return this.check(REGEXP_FLAGS.INTERSECTION) && this.match('&')
      ? { type: 'intersection', a: e, b: this.interExp() }
      : e;
  }

  private concatExp(): RegexpNode {
    // Iterative where Lucene recurses: a long literal does not deepen the stack.
    const parts = [this.repeatExp()];
    while (this.more() && !this.peek(')|') && !(this.check(REGEXP_FLAGS.INTERSECTION) && this.peek('&')))
      parts.push(this.repeatExp());
    return parts.reduceRight((b, a) => ({ type: 'concat', a, b }));
  }

  private repeatExp(): RegexpNode {
    let e = this.complExp();
    while (this.peek('?*+{')) {
      if (this.match('?')) e = { type: 'repeat', a: e, min: 0, max: 1 };
      else if (this.match('*')) e = { type: 'repeat', a: e, min: 0, max: -1 };
      else if (this.match('+')) e = { type: 'repeat', a: e, min: 1, max: -1 };
      else if (this.match('{')) {
        const n = this.integer();
        if (n === undefined) throw new RegexpSyntaxError(`integer expected at position ${this.pos}`);
        let m = n;
        if (this.match(',')) m = this.integer() ?? -1;
        if (!this.match('}')) throw new RegexpSyntaxError(`expected '}' at position ${this.pos}`);
        e = { type: 'repeat', a: e, min: n, max: m };
      }
    }
    return e;
  }

  private integer(): number | undefined {
    const start = this.pos;
    while (this.peek('0123456789')) this.next();
    if (start === this.pos) return undefined;
    const n = Number(this.s.slice(start, this.pos));
    // Java's Integer.parseInt fails past 2^31 − 1 (a NumberFormatException, not caught by RegExp).
    if (n > 0x7fffffff) throw new RegexpSyntaxError(`For input string: "${this.s.slice(start, this.pos)}"`);
    return n;
  }

  private complExp(): RegexpNode {
    if (this.check(REGEXP_FLAGS.COMPLEMENT) && this.match('~'))
      return { type: 'complement', a: this.complExp() };
    return this.charClassExp();
  }

  private charClassExp(): RegexpNode {
    if (!this.match('[')) return this.simpleExp();
    const negate = this.match('^');
    let e = this.charClass();
    while (this.more() && !this.peek(']')) e = { type: 'union', a: e, b: this.charClass() };
    if (negate) e = { type: 'intersection', a: ANY_CHAR, b: { type: 'complement', a: e } };
    if (!this.match(']')) throw new RegexpSyntaxError(`expected ']' at position ${this.pos}`);
    return e;
  }

  private charClass(): RegexpNode {
    const predefined = this.predefinedClass();
    if (predefined) return predefined;
    const c = this.charExp();
    if (this.match('-')) {
      const to = this.charExp();
      if (c > to) throw new RegexpSyntaxError(`invalid range: from (${c}) cannot be > to (${to})`);
      return { type: 'ranges', ranges: [[c, to]] };
    }
    return { type: 'string', codePoints: [c] };
  }

  /** `\d \D \s \S \w \W`; `\\`; an error for other escaped letters (Lucene follows java.util.regex). */
  private predefinedClass(): RegexpNode | undefined {
    if (!this.match('\\')) return undefined;
    if (this.peek('dDwWsS')) {
      const cls = PREDEFINED[String.fromCodePoint(this.next())]!;
      const set: RegexpNode = { type: 'ranges', ranges: cls.ranges };
      return cls.negate ? { type: 'intersection', a: ANY_CHAR, b: { type: 'complement', a: set } } : set;
    }
    if (this.peek('\\')) return { type: 'string', codePoints: [this.next()] };
    if (this.peek('abcefghijklmnopqrtuvxyzABCEFGHIJKLMNOPQRTUVXYZ'))
      throw new RegexpSyntaxError(`invalid character class \\${String.fromCodePoint(this.next())}`);
    return undefined;
  }

  private simpleExp(): RegexpNode {
    if (this.match('.')) return ANY_CHAR;
    if (this.check(REGEXP_FLAGS.EMPTY) && this.match('#')) return { type: 'emptyLanguage' };
    if (this.check(REGEXP_FLAGS.ANYSTRING) && this.match('@')) return { type: 'anyString' };
    if (this.match('"')) {
      const start = this.pos;
      while (this.more() && !this.peek('"')) this.next();
      if (!this.match('"')) throw new RegexpSyntaxError(`expected '"' at position ${this.pos}`);
      return {
        type: 'string',
        codePoints: [...this.s.slice(start, this.pos - 1)].map((ch) => ch.codePointAt(0)!),
      };
    }
    if (this.match('(')) {
      if (this.match(')')) return { type: 'string', codePoints: [] };
      const e = this.unionExp();
      if (!this.match(')')) throw new RegexpSyntaxError(`expected ')' at position ${this.pos}`);
      return e;
    }
    if ((this.check(REGEXP_FLAGS.AUTOMATON) || this.check(REGEXP_FLAGS.INTERVAL)) && this.match('<'))
      return this.angleExp();
    const predefined = this.predefinedClass();
    if (predefined) return predefined;
    return { type: 'string', codePoints: [this.charExp()] };
  }

  /** `<n-m>` (INTERVAL) or `<identifier>` (AUTOMATON: ES registers no named automata). */
  private angleExp(): RegexpNode {
    const start = this.pos;
    while (this.more() && !this.peek('>')) this.next();
    if (!this.match('>')) throw new RegexpSyntaxError(`expected '>' at position ${this.pos}`);
    const body = this.s.slice(start, this.pos - 1);
    const dash = body.indexOf('-');
    if (dash === -1) {
      if (!this.check(REGEXP_FLAGS.AUTOMATON))
        throw new RegexpSyntaxError(`interval syntax error at position ${this.pos - 1}`);
      throw new RegexpSyntaxError(`'${body}' not found`);
    }
    if (!this.check(REGEXP_FLAGS.INTERVAL))
      throw new RegexpSyntaxError(`illegal identifier at position ${this.pos - 1}`);
    const low = body.slice(0, dash);
    const high = body.slice(dash + 1);
    if (!/^[0-9]{1,9}$/.test(low) || !/^[0-9]{1,9}$/.test(high))
      throw new RegexpSyntaxError(`interval syntax error at position ${this.pos - 1}`);
    const a = Number(low);
    const b = Number(high);
    return {
      type: 'interval',
      min: Math.min(a, b),
      max: Math.max(a, b),
      digits: low.length === high.length ? low.length : 0,
    };
  }

  private charExp(): number {
    this.match('\\');
    return this.next();
  }
}
