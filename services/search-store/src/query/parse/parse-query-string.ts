import { LexicalError, TOKEN_IMAGE, lex, type Token, type TokenKind } from './query-string-lexer';
import type { Occur, QsNode, QsSyntaxError } from '../query-string-ast';

/**
 * Lucene's classic QueryParser grammar (QueryParser.jj, Lucene 9, as Elasticsearch 8's
 * QueryStringQueryParser runs it with split_on_whitespace false) as recursive descent over the
 * tokens of query-string-lexer.ts. The boolean logic is Lucene's `addClause`: AND makes the clause
 * before it required, OR under default_operator AND makes it optional, NOT/`-` prohibit, `+` requires.
 *
 * Errors carry JavaCC's message ("Encountered … at line 1, column N.\nWas expecting one of: …"),
 * which ES wraps as "Cannot parse '<query>': …". Parenthesis nesting is bounded (`maxDepth`).
 */
export interface QueryStringSyntaxOptions {
  defaultOperator: 'or' | 'and';
  allowLeadingWildcard: boolean;
  maxDepth: number;
}

class SyntaxError extends Error {
  constructor(
    message: string,
    readonly causeType = 'parse_exception',
  ) {
    super(message);
  }
}

const CLAUSE_START: string[] = [
  '<BAREOPER>',
  '"("',
  '"*"',
  '<QUOTED>',
  '<TERM>',
  '<PREFIXTERM>',
  '<WILDTERM>',
  '<REGEXPTERM>',
  '"["',
  '"{"',
  '<NUMBER>',
];
const QUERY_START = ['<NOT>', '"+"', '"-"', ...CLAUSE_START, '<TERM>'];
const AFTER_MODIFIER = [...CLAUSE_START, '<TERM>'];
const AFTER_CLAUSE = ['<AND>', '<OR>', ...QUERY_START.slice(0, -1)];

/** JavaCC's ParseException text for an unexpected token. */
function unexpected(token: Token, expected: string[]): SyntaxError {
  const seen =
    token.kind === 'EOF' ? '"<EOF>"' : `" ${TOKEN_IMAGE[token.kind]} "${escapeImage(token.image)} ""`;
  const list = expected.map((e) => (e === '<EOF>' ? '<EOF> ' : `${e} ...`)).join('\n    ');
  const header = expected.length === 1 ? 'Was expecting:' : 'Was expecting one of:';
  return new SyntaxError(`Encountered ${seen} at line 1, column ${token.at}.\n${header}\n    ${list}\n    `);
}

function escapeImage(image: string): string {
  return image.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * QueryParserBase.discardEscapeChar: drops escaping backslashes and decodes `\uXXXX`; ES reports its
 * three errors as they are.
 */
export function discardEscapeChar(input: string): string {
  let out = '';
  let escaped = false;
  let hex = -1;
  let code = 0;
  for (const ch of input) {
    if (hex >= 0) {
      const digit = parseInt(ch, 16);
      if (Number.isNaN(digit) || ch.length !== 1)
        throw new SyntaxError(`Non-hex character in Unicode escape sequence: ${ch}`);
      code = code * 16 + digit;
      hex += 1;
      if (hex === 4) {
        out += String.fromCharCode(code);
        hex = -1;
        code = 0;
      }
    } else if (escaped) {
      if (ch === 'u') hex = 0;
      else out += ch;
      escaped = false;
    } else if (ch === '\\') escaped = true;
    else out += ch;
  }
  if (hex >= 0) throw new SyntaxError('Truncated unicode escape sequence.');
  if (escaped) throw new SyntaxError('Term can not end with escape character.');
  return out;
}

interface Clause {
  occur: Occur;
  node: QsNode;
}

type Conj = 'none' | 'and' | 'or';
type Mods = 'none' | 'req' | 'not';

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly options: QueryStringSyntaxOptions,
  ) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }

  private take(): Token {
    const token = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos += 1;
    return token;
  }

  private expect(kinds: TokenKind[], expected: string[]): Token {
    const token = this.peek();
    if (!kinds.includes(token.kind)) throw unexpected(token, expected);
    return this.take();
  }

  top(): QsNode | undefined {
    const query = this.query(undefined);
    const end = this.peek();
    if (end.kind !== 'EOF') throw unexpected(end, ['<EOF>', ...AFTER_CLAUSE]);
    return query;
  }

  /** A following TERM may join a MultiTerm unless what comes after it binds it (`:`, `*`, `~`, `^`, AND, OR). */
  private joinsMultiTerm(offset: number): boolean {
    if (this.peek(offset).kind !== 'TERM') return false;
    const after = this.peek(offset + 1).kind;
    return !['COLON', 'STAR', 'FUZZY_SLOP', 'CARAT', 'AND', 'OR'].includes(after);
  }

  private startsClause(kind: TokenKind): boolean {
    return [
      'AND',
      'OR',
      'NOT',
      'PLUS',
      'MINUS',
      'BAREOPER',
      'LPAREN',
      'STAR',
      'QUOTED',
      'TERM',
      'PREFIXTERM',
      'WILDTERM',
      'REGEXPTERM',
      'RANGEIN_START',
      'RANGEEX_START',
      'NUMBER',
    ].includes(kind);
  }

  private query(field: string | undefined): QsNode | undefined {
    const clauses: Clause[] = [];
    let first: QsNode | undefined;
    let firstCounts = false;
    if (this.peek().kind === 'TERM' && this.joinsMultiTerm(1)) {
      first = this.multiTerm(field, clauses);
      firstCounts = true;
    } else {
      const mods = this.modifiers();
      const q = this.clause(field, mods !== 'none');
      this.addClause(clauses, 'none', mods, q);
      if (mods === 'none') {
        first = q;
        firstCounts = true;
      }
    }
    for (;;) {
      const next = this.peek();
      if (next.kind === 'TERM' && this.joinsMultiTerm(1)) {
        this.multiTerm(field, clauses);
      } else if (this.startsClause(next.kind)) {
        const conj = this.conjunction();
        const mods = this.modifiers();
        const q = this.clause(field, mods !== 'none' || conj !== 'none');
        this.addClause(clauses, conj, mods, q);
      } else break;
    }
    if (clauses.length === 1 && firstCounts && first !== undefined && first.t !== 'multi') return first;
    return this.booleanQuery(clauses);
  }

  /** getBooleanQuery: undefined when every clause was dropped. */
  private booleanQuery(clauses: Clause[]): QsNode | undefined {
    if (clauses.length === 0) return undefined;
    return { t: 'bool', clauses };
  }

  private multiTerm(field: string | undefined, clauses: Clause[]): QsNode {
    const terms = [this.take().image];
    while (this.joinsMultiTerm(0)) terms.push(this.take().image);
    const node: QsNode = {
      t: 'multi',
      field,
      text: discardEscapeChar(terms.join(' ')),
      occur: this.options.defaultOperator === 'and' ? 'must' : 'should',
    };
    clauses.push({ occur: node.occur, node });
    return node;
  }

  private conjunction(): Conj {
    const kind = this.peek().kind;
    if (kind === 'AND') {
      this.take();
      return 'and';
    }
    if (kind === 'OR') {
      this.take();
      return 'or';
    }
    return 'none';
  }

  private modifiers(): Mods {
    const kind = this.peek().kind;
    if (kind === 'PLUS') {
      this.take();
      return 'req';
    }
    if (kind === 'MINUS' || kind === 'NOT') {
      this.take();
      return 'not';
    }
    return 'none';
  }

  /** QueryParserBase.addClause, verbatim in effect. */
  private addClause(clauses: Clause[], conj: Conj, mods: Mods, q: QsNode | undefined): void {
    const last = clauses[clauses.length - 1];
    if (last && conj === 'and' && last.occur !== 'must_not') last.occur = 'must';
    if (last && this.options.defaultOperator === 'and' && conj === 'or' && last.occur !== 'must_not')
      last.occur = 'should';
    if (q === undefined) return;
    let required: boolean;
    const prohibited = mods === 'not';
    if (this.options.defaultOperator === 'or') {
      required = mods === 'req' || (conj === 'and' && !prohibited);
    } else {
      required = !prohibited && conj !== 'or';
    }
    clauses.push({ occur: prohibited ? 'must_not' : required ? 'must' : 'should', node: q });
  }

  private clause(field: string | undefined, afterOperator: boolean): QsNode | undefined {
    let qfield = field;
    const a = this.peek();
    const b = this.peek(1);
    if ((a.kind === 'TERM' || a.kind === 'STAR') && b.kind === 'COLON') {
      this.take();
      this.take();
      qfield = a.kind === 'STAR' ? '*' : discardEscapeChar(a.image);
      const next = this.peek();
      if (next.kind !== 'LPAREN' && !this.startsTerm(next.kind)) throw unexpected(next, CLAUSE_START);
    }
    if (this.peek().kind === 'LPAREN') {
      this.take();
      if (this.depth >= this.options.maxDepth) {
        throw new SyntaxError(
          `Parentheses nest deeper than ${this.options.maxDepth} levels (indices.query.bool.max_nested_depth).`,
        );
      }
      this.depth += 1;
      const inner = this.query(qfield);
      this.depth -= 1;
      this.expect(['RPAREN'], ['")"', ...AFTER_CLAUSE]);
      return this.boosted(inner, this.boost());
    }
    if (!this.startsTerm(this.peek().kind))
      throw unexpected(this.peek(), afterOperator ? AFTER_MODIFIER : QUERY_START);
    return this.term(qfield);
  }

  private startsTerm(kind: TokenKind): boolean {
    return [
      'TERM',
      'STAR',
      'PREFIXTERM',
      'WILDTERM',
      'REGEXPTERM',
      'NUMBER',
      'BAREOPER',
      'RANGEIN_START',
      'RANGEEX_START',
      'QUOTED',
    ].includes(kind);
  }

  private boost(): number | undefined {
    if (this.peek().kind !== 'CARAT') return undefined;
    this.take();
    return Number(this.expect(['NUMBER'], ['<NUMBER>']).image);
  }

  private boosted(node: QsNode | undefined, boost: number | undefined): QsNode | undefined {
    return node === undefined || boost === undefined ? node : { t: 'boost', node, boost };
  }

  /** Term(): a term, wildcard, prefix, regexp or number with `^boost` and `~fuzzy`, a range, or a phrase. */
  private term(field: string | undefined): QsNode | undefined {
    const token = this.take();
    if (token.kind === 'RANGEIN_START' || token.kind === 'RANGEEX_START') return this.range(field, token);
    let boost: number | undefined;
    let slop: Token | undefined;
    if (this.peek().kind === 'CARAT') {
      boost = this.boost();
      if (this.peek().kind === 'FUZZY_SLOP') slop = this.take();
    } else if (this.peek().kind === 'FUZZY_SLOP') {
      slop = this.take();
      boost = this.boost();
    }
    if (token.kind === 'QUOTED') {
      let phraseSlop: number | undefined;
      if (slop) {
        const n = Number.parseFloat(slop.image.slice(1));
        if (Number.isFinite(n)) phraseSlop = Math.trunc(n);
      }
      const text = discardEscapeChar(token.image.slice(1, -1));
      return this.boosted({ t: 'phrase', field, text, slop: phraseSlop }, boost);
    }
    let node: QsNode;
    if (token.kind === 'STAR' || token.kind === 'WILDTERM') {
      if (
        !this.options.allowLeadingWildcard &&
        token.kind === 'WILDTERM' &&
        (token.image.startsWith('*') || token.image.startsWith('?'))
      ) {
        throw new SyntaxError("'*' or '?' not allowed as first character in WildcardQuery");
      }
      node = { t: 'wildcard', field, text: token.image };
    } else if (token.kind === 'PREFIXTERM') {
      node = { t: 'prefix', field, text: discardEscapeChar(token.image.slice(0, -1)) };
    } else if (token.kind === 'REGEXPTERM') {
      node = { t: 'regexp', field, text: token.image.slice(1, -1) };
    } else {
      const image = token.kind === 'BAREOPER' ? token.image.slice(0, 1) : token.image;
      const text = discardEscapeChar(image);
      node = slop ? { t: 'fuzzy', field, text, edits: slop.image.slice(1) } : { t: 'term', field, text };
    }
    return this.boosted(node, boost);
  }

  private range(field: string | undefined, start: Token): QsNode | undefined {
    const goop: TokenKind[] = ['RANGE_GOOP', 'RANGE_QUOTED', 'RANGE_TO'];
    const first = this.expect(goop, ['<RANGE_QUOTED>', '<RANGE_GOOP>']);
    if (this.peek().kind === 'RANGE_TO' && goop.includes(this.peek(1).kind)) this.take();
    const second = this.expect(goop, ['"TO"', '<RANGE_QUOTED>', '<RANGE_GOOP>']);
    const end = this.expect(['RANGEIN_END', 'RANGEEX_END'], ['"]"', '"}"']);
    const bound = (t: Token): string | undefined =>
      t.kind === 'RANGE_QUOTED'
        ? discardEscapeChar(t.image.slice(1, -1))
        : t.image === '*'
          ? undefined
          : discardEscapeChar(t.image);
    const node: QsNode = {
      t: 'range',
      field,
      lower: bound(first),
      upper: bound(second),
      includeLower: start.kind === 'RANGEIN_START',
      includeUpper: end.kind === 'RANGEIN_END',
    };
    return this.boosted(node, this.boost());
  }
}

/** The tree of one `query_string`, or the syntax error ES reports for it ("Cannot parse '…': …"). */
export function parseQueryStringSyntax(
  text: string,
  options: QueryStringSyntaxOptions,
): QsNode | undefined | QsSyntaxError {
  try {
    return new Parser(lex(text), options).top();
  } catch (error) {
    if (error instanceof LexicalError || error instanceof SyntaxError) {
      const type = error instanceof LexicalError ? 'token_mgr_error' : error.causeType;
      return {
        reason: `Cannot parse '${text}': ${error.message}`,
        cause: { type, reason: error.message },
      };
    }
    throw error;
  }
}
