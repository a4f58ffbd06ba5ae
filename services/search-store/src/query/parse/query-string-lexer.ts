/**
 * The tokens of Lucene's classic QueryParser (QueryParser.jj, what Elasticsearch's `query_string`
 * extends), scanned by hand: at each position every token pattern is measured once, the longest wins
 * and a tie goes to the pattern declared first, as JavaCC's token manager decides. Each measurement
 * reads forward only, so a whole input lexes in time linear in its length; nothing backtracks.
 *
 * Lexical states as in the grammar: after `^` only a NUMBER (Boost), after `[`/`{` the range tokens
 * (Range) until `]`/`}`.
 */
export type TokenKind =
  | 'EOF'
  | 'AND'
  | 'OR'
  | 'NOT'
  | 'PLUS'
  | 'MINUS'
  | 'BAREOPER'
  | 'LPAREN'
  | 'RPAREN'
  | 'COLON'
  | 'STAR'
  | 'CARAT'
  | 'QUOTED'
  | 'TERM'
  | 'FUZZY_SLOP'
  | 'PREFIXTERM'
  | 'WILDTERM'
  | 'REGEXPTERM'
  | 'RANGEIN_START'
  | 'RANGEEX_START'
  | 'NUMBER'
  | 'RANGE_TO'
  | 'RANGEIN_END'
  | 'RANGEEX_END'
  | 'RANGE_QUOTED'
  | 'RANGE_GOOP';

export interface Token {
  kind: TokenKind;
  image: string;
  /** Offset of the token's first character (JavaCC's 0-based column on one line). */
  at: number;
}

/** JavaCC's TokenMgrError: a character no token can start with (ES renders it `token_mgr_error`). */
export class LexicalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LexicalError';
  }
}

/** How JavaCC's error messages name each token kind (`tokenImage`). */
export const TOKEN_IMAGE: Record<TokenKind, string> = {
  EOF: '<EOF>',
  AND: '<AND>',
  OR: '<OR>',
  NOT: '<NOT>',
  PLUS: '"+"',
  MINUS: '"-"',
  BAREOPER: '<BAREOPER>',
  LPAREN: '"("',
  RPAREN: '")"',
  COLON: '":"',
  STAR: '"*"',
  CARAT: '"^"',
  QUOTED: '<QUOTED>',
  TERM: '<TERM>',
  FUZZY_SLOP: '<FUZZY_SLOP>',
  PREFIXTERM: '<PREFIXTERM>',
  WILDTERM: '<WILDTERM>',
  REGEXPTERM: '<REGEXPTERM>',
  RANGEIN_START: '"["',
  RANGEEX_START: '"{"',
  NUMBER: '<NUMBER>',
  RANGE_TO: '"TO"',
  RANGEIN_END: '"]"',
  RANGEEX_END: '"}"',
  RANGE_QUOTED: '<RANGE_QUOTED>',
  RANGE_GOOP: '<RANGE_GOOP>',
};

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\u3000']);
/** Characters that cannot start a term unescaped (`_TERM_START_CHAR`'s exclusions). */
const NOT_TERM_START = new Set([
  ...WHITESPACE,
  '+',
  '-',
  '!',
  '(',
  ')',
  ':',
  '^',
  '[',
  ']',
  '"',
  '{',
  '}',
  '~',
  '*',
  '?',
  '\\',
  '/',
]);

/** Length of `_TERM_START_CHAR` at i (2 for an escape), 0 if none. */
function termStartAt(s: string, i: number): number {
  if (i >= s.length) return 0;
  const c = s[i]!;
  if (c === '\\') return i + 1 < s.length ? 2 : 0;
  return NOT_TERM_START.has(c) ? 0 : 1;
}

/** Length of `_TERM_CHAR` at i: a term-start character, an escape, `-` or `+`. */
function termCharAt(s: string, i: number): number {
  const n = termStartAt(s, i);
  if (n > 0) return n;
  return s[i] === '-' || s[i] === '+' ? 1 : 0;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** End of `(<_TERM_CHAR>)*` from i. */
function termCharsEnd(s: string, i: number): number {
  let j = i;
  for (let n = termCharAt(s, j); n > 0; n = termCharAt(s, j)) j += n;
  return j;
}

type Candidate = [TokenKind, number];

/** The longest default-state token at i; on equal lengths the kind listed first (declaration order). */
function defaultTokenAt(s: string, i: number): Candidate | undefined {
  const candidates: Candidate[] = [];
  const c = s[i]!;
  const next = s[i + 1];
  if (s.startsWith('AND', i)) candidates.push(['AND', 3]);
  if (s.startsWith('&&', i)) candidates.push(['AND', 2]);
  if (s.startsWith('OR', i)) candidates.push(['OR', 2]);
  if (s.startsWith('||', i)) candidates.push(['OR', 2]);
  if (s.startsWith('NOT', i)) candidates.push(['NOT', 3]);
  if (c === '!') candidates.push(['NOT', 1]);
  if (c === '+') candidates.push(['PLUS', 1]);
  if (c === '-') candidates.push(['MINUS', 1]);
  if ((c === '+' || c === '-' || c === '!') && next !== undefined && WHITESPACE.has(next))
    candidates.push(['BAREOPER', 2]);
  if (c === '(') candidates.push(['LPAREN', 1]);
  if (c === ')') candidates.push(['RPAREN', 1]);
  if (c === ':') candidates.push(['COLON', 1]);
  if (c === '*') candidates.push(['STAR', 1]);
  if (c === '^') candidates.push(['CARAT', 1]);
  if (c === '"') {
    // "\"" (~["\"", "\\"] | "\\" ~[])* "\""
    let j = i + 1;
    while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    if (j < s.length) candidates.push(['QUOTED', j + 1 - i]);
  }
  const start = termStartAt(s, i);
  if (start > 0) {
    const end = termCharsEnd(s, i + start);
    candidates.push(['TERM', end - i]);
    if (s[end] === '*') candidates.push(['PREFIXTERM', end + 1 - i]);
  }
  if (c === '~') candidates.push(['FUZZY_SLOP', termCharsEnd(s, i + 1) - i]);
  if (c === '*') candidates.push(['PREFIXTERM', 1]);
  if (start > 0 || c === '*' || c === '?') {
    // (<_TERM_START_CHAR> | [*?]) (<_TERM_CHAR> | [*?])*
    let j = i + (start > 0 ? start : 1);
    for (;;) {
      const n = termCharAt(s, j);
      if (n > 0) j += n;
      else if (s[j] === '*' || s[j] === '?') j += 1;
      else break;
    }
    candidates.push(['WILDTERM', j - i]);
  }
  if (c === '/') {
    // "/" (~["/"] | "\\/")* "/": the longest match ends at the last "/" before an unescaped one.
    let end = -1;
    for (let j = i + 1; j < s.length; j++) {
      if (s[j] !== '/') continue;
      end = j;
      if (s[j - 1] !== '\\' || j - 1 === i) break;
    }
    if (end > i) candidates.push(['REGEXPTERM', end + 1 - i]);
  }
  if (c === '[') candidates.push(['RANGEIN_START', 1]);
  if (c === '{') candidates.push(['RANGEEX_START', 1]);
  let best: Candidate | undefined;
  for (const candidate of candidates) if (!best || candidate[1] > best[1]) best = candidate;
  return best;
}

function rangeTokenAt(s: string, i: number): Candidate | undefined {
  const candidates: Candidate[] = [];
  const c = s[i]!;
  if (s.startsWith('TO', i)) candidates.push(['RANGE_TO', 2]);
  if (c === ']') candidates.push(['RANGEIN_END', 1]);
  if (c === '}') candidates.push(['RANGEEX_END', 1]);
  if (c === '"') {
    // "\"" (~["\""] | "\\\"")+ "\"": as for regexps, the last quote before an unescaped one.
    let end = -1;
    for (let j = i + 1; j < s.length; j++) {
      if (s[j] !== '"') continue;
      if (j > i + 1) end = j;
      if (s[j - 1] !== '\\' || j - 1 === i) break;
    }
    if (end > i) candidates.push(['RANGE_QUOTED', end + 1 - i]);
  }
  let j = i;
  while (j < s.length && s[j] !== ' ' && s[j] !== ']' && s[j] !== '}') j++;
  if (j > i) candidates.push(['RANGE_GOOP', j - i]);
  let best: Candidate | undefined;
  for (const candidate of candidates) if (!best || candidate[1] > best[1]) best = candidate;
  return best;
}

function escapeForMessage(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
}

function lexicalError(s: string, at: number, from: number): LexicalError {
  const seen = at >= s.length ? '<EOF> ' : `"${escapeForMessage(s[at]!)}" (${s.charCodeAt(at)}), `;
  return new LexicalError(
    `Lexical error at line 1, column ${at + 1}.  Encountered: ${seen}after : "${escapeForMessage(s.slice(from, at))}"`,
  );
}

/** The whole input as tokens, ending with EOF; throws LexicalError where no token matches. */
export function lex(s: string): Token[] {
  const tokens: Token[] = [];
  let state: 'DEFAULT' | 'Boost' | 'Range' = 'DEFAULT';
  let i = 0;
  while (i <= s.length) {
    if (state !== 'Boost') while (i < s.length && WHITESPACE.has(s[i]!)) i++;
    if (i >= s.length) {
      if (state === 'Boost') throw lexicalError(s, i, i);
      tokens.push({ kind: 'EOF', image: '', at: s.length });
      return tokens;
    }
    let found: Candidate | undefined;
    if (state === 'DEFAULT') found = defaultTokenAt(s, i);
    else if (state === 'Range') found = rangeTokenAt(s, i);
    else if (isDigit(s[i])) {
      let j = i;
      while (isDigit(s[j])) j++;
      if (s[j] === '.' && isDigit(s[j + 1])) {
        j++;
        while (isDigit(s[j])) j++;
      }
      found = ['NUMBER', j - i];
    }
    if (!found) {
      // A trailing backslash: JavaCC reports the EOF after it.
      throw s[i] === '\\' ? lexicalError(s, i + 1, i) : lexicalError(s, i, i);
    }
    const [kind, length] = found;
    tokens.push({ kind, image: s.slice(i, i + length), at: i });
    i += length;
    if (kind === 'CARAT') state = 'Boost';
    else if (kind === 'NUMBER') state = 'DEFAULT';
    else if (kind === 'RANGEIN_START' || kind === 'RANGEEX_START') state = 'Range';
    else if (kind === 'RANGEIN_END' || kind === 'RANGEEX_END') state = 'DEFAULT';
  }
  tokens.push({ kind: 'EOF', image: '', at: s.length });
  return tokens;
}
