import { ScriptError } from './script-error';

export type TokenKind = 'int' | 'long' | 'double' | 'string' | 'ident' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The literal's value (numbers as written, strings unescaped) or the identifier/punctuator. */
  text: string;
  offset: number;
}

// Longest first, so `>>=` wins over `>>` and `>`.
const PUNCTUATORS = [
  '>>>=',
  '>>>',
  '<<=',
  '>>=',
  '===',
  '!==',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<',
  '>>',
  '?.',
  '?:',
  '->',
  '::',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ';',
  '.',
  '?',
  ':',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '~',
  '&',
  '|',
  '^',
];

const ESCAPES: ReadonlyMap<string, string> = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['b', '\b'],
  ['f', '\f'],
  ['\\', '\\'],
  ["'", "'"],
  ['"', '"'],
]);

function isIdentStart(ch: string): boolean {
  return /[A-Za-z_$]/.test(ch);
}

function isIdentPart(ch: string): boolean {
  return /[A-Za-z0-9_$]/.test(ch);
}

/** Painless's lexer, for the subset we run: numbers, strings, identifiers, operators, comments. */
export function tokenize(source: string, maxTokens: number): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = source.length;
  while (i < n) {
    if (tokens.length >= maxTokens) {
      throw new ScriptError(
        'compile',
        'illegal_argument_exception',
        `script is too long: more than [${maxTokens}] tokens`,
        i,
      );
    }
    const ch = source[i] as string;
    if (/\s/.test(ch)) {
      i += 1;
      continue;
    }
    if (ch === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i += 1;
      continue;
    }
    if (ch === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      if (close < 0)
        throw new ScriptError('compile', 'illegal_argument_exception', 'unterminated comment', i);
      i = close + 2;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const { token, end } = readNumber(source, i);
      tokens.push(token);
      i = end;
      if (source[i] !== undefined && isIdentPart(source[i] as string)) {
        throw new ScriptError(
          'compile',
          'illegal_argument_exception',
          `invalid number [${source.slice(start, i + 1)}]`,
          start,
        );
      }
      continue;
    }
    if (ch === "'" || ch === '"') {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= n)
          throw new ScriptError('compile', 'illegal_argument_exception', 'unterminated string', start);
        const c = source[i] as string;
        if (c === ch) break;
        if (c === '\\') {
          const esc = source[i + 1] ?? '';
          const mapped = ESCAPES.get(esc);
          if (mapped === undefined) {
            throw new ScriptError(
              'compile',
              'illegal_argument_exception',
              `invalid escape sequence [\\${esc}]`,
              i,
            );
          }
          value += mapped;
          i += 2;
          continue;
        }
        value += c;
        i += 1;
      }
      i += 1;
      tokens.push({ kind: 'string', text: value, offset: start });
      continue;
    }
    if (isIdentStart(ch)) {
      while (i < n && isIdentPart(source[i] as string)) i += 1;
      tokens.push({ kind: 'ident', text: source.slice(start, i), offset: start });
      continue;
    }
    const punct = PUNCTUATORS.find((p) => source.startsWith(p, i));
    if (!punct)
      throw new ScriptError('compile', 'illegal_argument_exception', `unexpected character [${ch}]`, i);
    tokens.push({ kind: 'punct', text: punct, offset: start });
    i += punct.length;
  }
  tokens.push({ kind: 'eof', text: '<EOF>', offset: n });
  return tokens;
}

function readNumber(source: string, start: number): { token: Token; end: number } {
  let i = start;
  let isDouble = false;
  if (source.startsWith('0x', i) || source.startsWith('0X', i)) {
    i += 2;
    while (/[0-9a-fA-F]/.test(source[i] ?? '')) i += 1;
  } else {
    while (/[0-9]/.test(source[i] ?? '')) i += 1;
    if (source[i] === '.' && /[0-9]/.test(source[i + 1] ?? '')) {
      isDouble = true;
      i += 1;
      while (/[0-9]/.test(source[i] ?? '')) i += 1;
    }
    if (/[eE]/.test(source[i] ?? '') && /[-+0-9]/.test(source[i + 1] ?? '')) {
      isDouble = true;
      i += 2;
      while (/[0-9]/.test(source[i] ?? '')) i += 1;
    }
  }
  const text = source.slice(start, i);
  const suffix = source[i] ?? '';
  if (/[dDfF]/.test(suffix)) return { token: { kind: 'double', text, offset: start }, end: i + 1 };
  if (/[lL]/.test(suffix)) return { token: { kind: 'long', text, offset: start }, end: i + 1 };
  return { token: { kind: isDouble ? 'double' : 'int', text, offset: start }, end: i };
}
