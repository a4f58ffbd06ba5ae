import {
  isTypeName,
  type AssignOp,
  type BinaryOp,
  type Expr,
  type Program,
  type Stmt,
  type TypeName,
} from './ast';
import { tokenize, type Token } from './lexer';
import { ScriptError } from './script-error';

export interface ParseLimits {
  /** Deepest nesting of statements and expressions the parser accepts (guards the JS stack). */
  maxDepth: number;
  maxTokens: number;
}

const ASSIGN_OPS = new Set<string>([
  '=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<=',
  '>>=',
  '>>>=',
]);
const RESERVED = new Set([
  'if',
  'else',
  'while',
  'do',
  'for',
  'in',
  'return',
  'break',
  'continue',
  'new',
  'true',
  'false',
  'null',
  'instanceof',
]);

/** Binary operator precedence, lowest first (Java's table, without assignment and the ternary). */
const BINARY_LEVELS: ReadonlyArray<ReadonlyArray<string>> = [
  ['|'],
  ['^'],
  ['&'],
  ['==', '!=', '===', '!=='],
  ['<', '<=', '>', '>=', 'instanceof'],
  ['<<', '>>', '>>>'],
  ['+', '-'],
  ['*', '/', '%'],
];

/** Parses a Painless-subset script into a typed AST; errors carry the offending offset. */
export function parseScript(source: string, limits: ParseLimits): Program {
  return new Parser(tokenize(source, limits.maxTokens), limits.maxDepth).program();
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly maxDepth: number,
  ) {}

  program(): Program {
    const body: Stmt[] = [];
    while (!this.at('eof')) body.push(this.statement());
    return { body };
  }

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)] as Token;
  }

  private at(kind: Token['kind'], text?: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === kind && (text === undefined || t.text === text);
  }

  private isPunct(text: string, ahead = 0): boolean {
    return this.at('punct', text, ahead);
  }

  private isKeyword(text: string): boolean {
    return this.at('ident', text);
  }

  private next(): Token {
    const t = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos += 1;
    return t;
  }

  private fail(message: string, token: Token = this.peek()): never {
    throw new ScriptError('compile', 'illegal_argument_exception', message, token.offset);
  }

  private expect(text: string): Token {
    if (!this.isPunct(text)) {
      const t = this.peek();
      this.fail(
        t.kind === 'eof'
          ? `invalid sequence of tokens near ['${text}'].`
          : `unexpected token ['${t.text}'] was expecting one of [${text}].`,
      );
    }
    return this.next();
  }

  private ident(): Token {
    const t = this.peek();
    if (t.kind !== 'ident' || RESERVED.has(t.text))
      this.fail(`unexpected token ['${t.text}'] was expecting an identifier.`);
    return this.next();
  }

  private enter(): void {
    this.depth += 1;
    if (this.depth > this.maxDepth)
      this.fail(`script is nested too deeply: more than [${this.maxDepth}] levels`);
  }

  /** Painless lets the last statement of a block or script omit its semicolon. */
  private endStatement(): void {
    if (this.isPunct(';')) {
      this.next();
      return;
    }
    if (this.isPunct('}') || this.at('eof')) return;
    const t = this.peek();
    this.fail(`unexpected token ['${t.text}'] was expecting one of [';'].`);
  }

  private statement(): Stmt {
    this.enter();
    try {
      return this.statementInner();
    } finally {
      this.depth -= 1;
    }
  }

  private statementInner(): Stmt {
    const t = this.peek();
    const at = t.offset;
    if (this.isPunct('{')) return this.block();
    if (this.isPunct(';')) {
      this.next();
      return { k: 'block', at, body: [] };
    }
    if (t.kind === 'ident') {
      switch (t.text) {
        case 'if': {
          this.next();
          this.expect('(');
          const test = this.expression();
          this.expect(')');
          const then = this.statement();
          let otherwise: Stmt | null = null;
          if (this.isKeyword('else')) {
            this.next();
            otherwise = this.statement();
          }
          return { k: 'if', at, test, then, else: otherwise };
        }
        case 'while': {
          this.next();
          this.expect('(');
          const test = this.expression();
          this.expect(')');
          return { k: 'while', at, test, body: this.statement() };
        }
        case 'do': {
          this.next();
          const body = this.statement();
          if (!this.isKeyword('while'))
            this.fail(`unexpected token ['${this.peek().text}'] was expecting one of [while].`);
          this.next();
          this.expect('(');
          const test = this.expression();
          this.expect(')');
          this.endStatement();
          return { k: 'do', at, body, test };
        }
        case 'for':
          return this.forStatement();
        case 'return': {
          this.next();
          const value = this.isPunct(';') || this.isPunct('}') || this.at('eof') ? null : this.expression();
          this.endStatement();
          return { k: 'return', at, value };
        }
        case 'break':
        case 'continue':
          this.next();
          this.endStatement();
          return { k: t.text, at };
        default:
          if (this.isDeclarationStart()) {
            const decl = this.declaration();
            this.endStatement();
            return decl;
          }
      }
    }
    const expr = this.expression();
    this.endStatement();
    return { k: 'expr', at, expr };
  }

  private block(): Stmt {
    const at = this.expect('{').offset;
    const body: Stmt[] = [];
    while (!this.isPunct('}')) {
      if (this.at('eof')) this.fail(`invalid sequence of tokens near ['}'].`);
      body.push(this.statement());
    }
    this.next();
    return { k: 'block', at, body };
  }

  /** `Type name` (with optional generics `<…>` skipped) starts a declaration. */
  private isDeclarationStart(): boolean {
    const t = this.peek();
    if (t.kind !== 'ident' || !isTypeName(t.text)) return false;
    let ahead = 1;
    if (this.isPunct('<', ahead)) {
      let level = 0;
      for (;;) {
        const tok = this.peek(ahead);
        if (tok.kind === 'eof') return false;
        if (tok.text === '<') level += 1;
        else if (tok.text === '>') level -= 1;
        else if (tok.text === '>>') level -= 2;
        ahead += 1;
        if (level <= 0) break;
      }
    }
    return this.at('ident', undefined, ahead);
  }

  private typeName(): TypeName {
    const t = this.ident();
    if (!isTypeName(t.text)) this.fail(`cannot resolve type [${t.text}]`, t);
    if (this.isPunct('<')) this.skipGenerics();
    return t.text;
  }

  private skipGenerics(): void {
    let level = 0;
    do {
      const t = this.next();
      if (t.kind === 'eof') this.fail('invalid sequence of tokens near [<].', t);
      if (t.text === '<') level += 1;
      else if (t.text === '>') level -= 1;
      else if (t.text === '>>') level -= 2;
    } while (level > 0);
  }

  private declaration(): Stmt {
    const at = this.peek().offset;
    const type = this.typeName();
    const vars: Array<{ name: string; at: number; init: Expr | null }> = [];
    do {
      const name = this.ident();
      let init: Expr | null = null;
      if (this.isPunct('=')) {
        this.next();
        init = this.expression();
      }
      vars.push({ name: name.text, at: name.offset, init });
    } while (this.isPunct(',') && this.next());
    return { k: 'decl', at, type, vars };
  }

  private forStatement(): Stmt {
    const at = this.next().offset;
    this.expect('(');
    // for (Type x : iterable) and for (x in iterable)
    if (
      this.peek().kind === 'ident' &&
      isTypeName(this.peek().text) &&
      this.at('ident', undefined, 1) &&
      this.isPunct(':', 2)
    ) {
      const type = this.typeName();
      const name = this.ident().text;
      this.expect(':');
      return this.forEachRest(at, type, name);
    }
    if (this.peek().kind === 'ident' && this.at('ident', 'in', 1)) {
      const name = this.ident().text;
      this.next();
      return this.forEachRest(at, 'def', name);
    }
    let init: Stmt | null = null;
    if (!this.isPunct(';')) {
      const initAt = this.peek().offset;
      init = this.isDeclarationStart()
        ? this.declaration()
        : { k: 'expr', at: initAt, expr: this.expression() };
    }
    this.expect(';');
    const test = this.isPunct(';') ? null : this.expression();
    this.expect(';');
    const update: Expr[] = [];
    while (!this.isPunct(')')) {
      update.push(this.expression());
      if (!this.isPunct(')')) this.expect(',');
    }
    this.expect(')');
    return { k: 'for', at, init, test, update, body: this.statement() };
  }

  private forEachRest(at: number, type: TypeName, name: string): Stmt {
    const iterable = this.expression();
    this.expect(')');
    return { k: 'foreach', at, type, name, iterable, body: this.statement() };
  }

  expression(): Expr {
    this.enter();
    try {
      return this.assignment();
    } finally {
      this.depth -= 1;
    }
  }

  private assignment(): Expr {
    const left = this.conditional();
    const t = this.peek();
    if (t.kind === 'punct' && ASSIGN_OPS.has(t.text)) {
      if (left.k !== 'var' && left.k !== 'member' && left.k !== 'index')
        this.fail('invalid assignment: cannot assign a value to this expression', t);
      this.next();
      const value = this.expression();
      return { k: 'assign', at: left.at, op: t.text as AssignOp, target: left, value };
    }
    return left;
  }

  private conditional(): Expr {
    const test = this.binary(-2);
    if (this.isPunct('?')) {
      this.next();
      const then = this.expression();
      this.expect(':');
      const otherwise = this.expression();
      return { k: 'cond', at: test.at, test, then, else: otherwise };
    }
    if (this.isPunct('?:')) {
      this.next();
      return { k: 'elvis', at: test.at, left: test, right: this.expression() };
    }
    return test;
  }

  /** Levels -2 and -1 are `||` and `&&`; 0.. index BINARY_LEVELS. */
  private binary(level: number): Expr {
    if (level >= BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (level === -2 && this.isPunct('||')) {
        this.next();
        left = { k: 'logical', at: left.at, op: '||', left, right: this.binary(level + 1) };
      } else if (level === -1 && this.isPunct('&&')) {
        this.next();
        left = { k: 'logical', at: left.at, op: '&&', left, right: this.binary(level + 1) };
      } else if (
        level >= 0 &&
        (t.kind === 'punct' || t.text === 'instanceof') &&
        (BINARY_LEVELS[level] as readonly string[]).includes(t.text)
      ) {
        this.next();
        if (t.text === 'instanceof') {
          left = { k: 'instanceof', at: left.at, expr: left, type: this.typeName() };
        } else {
          left = { k: 'binary', at: t.offset, op: t.text as BinaryOp, left, right: this.binary(level + 1) };
        }
      } else {
        return left;
      }
      this.checkDepthOfChain();
    }
  }

  /** Long operator chains build deep left-leaning trees; count them towards the depth limit. */
  private chain = 0;
  private checkDepthOfChain(): void {
    this.chain += 1;
    if (this.chain > this.maxDepth * 100)
      this.fail(`script is nested too deeply: more than [${this.maxDepth}] levels`);
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === 'punct' && ['!', '-', '+', '~'].includes(t.text)) {
      this.next();
      this.enter();
      try {
        const expr = this.unary();
        // Fold negative literals so that -9223372036854775808L parses.
        if (
          t.text === '-' &&
          expr.k === 'lit' &&
          (typeof expr.value === 'bigint' || typeof expr.value === 'number')
        ) {
          return { k: 'lit', at: t.offset, value: -expr.value };
        }
        return { k: 'unary', at: t.offset, op: t.text as '!' | '-' | '+' | '~', expr };
      } finally {
        this.depth -= 1;
      }
    }
    if (this.isPunct('++') || this.isPunct('--')) {
      this.next();
      const target = this.unary();
      this.checkTarget(target, t);
      return { k: 'update', at: t.offset, op: t.text as '++' | '--', prefix: true, target };
    }
    // A cast: `(int) x`, `(double) doc['f'].value`.
    if (
      this.isPunct('(') &&
      this.at('ident', undefined, 1) &&
      isTypeName(this.peek(1).text) &&
      this.isPunct(')', 2)
    ) {
      this.next();
      const type = this.typeName();
      this.expect(')');
      this.enter();
      try {
        return { k: 'cast', at: t.offset, type, expr: this.unary() };
      } finally {
        this.depth -= 1;
      }
    }
    return this.postfix();
  }

  private checkTarget(target: Expr, t: Token): void {
    if (target.k !== 'var' && target.k !== 'member' && target.k !== 'index')
      this.fail('invalid increment: cannot assign a value to this expression', t);
  }

  private postfix(): Expr {
    let expr = this.primary();
    for (;;) {
      const t = this.peek();
      if (this.isPunct('.') || this.isPunct('?.')) {
        this.next();
        const name = this.ident();
        const nullSafe = t.text === '?.';
        if (this.isPunct('(')) {
          expr = { k: 'mcall', at: name.offset, obj: expr, name: name.text, args: this.args(), nullSafe };
        } else {
          expr = { k: 'member', at: name.offset, obj: expr, name: name.text, nullSafe };
        }
      } else if (this.isPunct('[')) {
        this.next();
        const index = this.expression();
        this.expect(']');
        expr = { k: 'index', at: t.offset, obj: expr, index };
      } else if (this.isPunct('++') || this.isPunct('--')) {
        this.checkTarget(expr, t);
        this.next();
        expr = { k: 'update', at: t.offset, op: t.text as '++' | '--', prefix: false, target: expr };
      } else {
        return expr;
      }
      this.checkDepthOfChain();
    }
  }

  private args(): Expr[] {
    this.expect('(');
    const args: Expr[] = [];
    while (!this.isPunct(')')) {
      args.push(this.expression());
      if (!this.isPunct(')')) this.expect(',');
    }
    this.next();
    return args;
  }

  private primary(): Expr {
    const t = this.peek();
    const at = t.offset;
    switch (t.kind) {
      case 'int':
      case 'long':
        this.next();
        return { k: 'lit', at, value: parseInteger(t, (m) => this.fail(m, t)) };
      case 'double':
        this.next();
        return { k: 'lit', at, value: Number(t.text) };
      case 'string':
        this.next();
        return { k: 'lit', at, value: t.text };
      case 'eof':
        return this.fail('invalid sequence of tokens near [<EOF>].');
      case 'punct':
        if (t.text === '(') {
          this.next();
          const inner = this.expression();
          this.expect(')');
          return inner;
        }
        if (t.text === '[') return this.collectionLiteral();
        return this.fail(`unexpected token ['${t.text}'] was expecting an expression.`);
      case 'ident':
        break;
    }
    if (t.text === 'true' || t.text === 'false') {
      this.next();
      return { k: 'lit', at, value: t.text === 'true' };
    }
    if (t.text === 'null') {
      this.next();
      return { k: 'lit', at, value: null };
    }
    if (t.text === 'new') {
      this.next();
      const type = this.typeName();
      return { k: 'new', at, type, args: this.args() };
    }
    const name = this.ident();
    if (this.isPunct('(')) return { k: 'call', at, name: name.text, args: this.args() };
    return { k: 'var', at, name: name.text };
  }

  /** `[a, b]` is a list, `[k: v, …]` a map and `[:]` the empty map (Painless initializers). */
  private collectionLiteral(): Expr {
    const at = this.expect('[').offset;
    if (this.isPunct(':') && this.isPunct(']', 1)) {
      this.next();
      this.next();
      return { k: 'map', at, entries: [] };
    }
    if (this.isPunct(']')) {
      this.next();
      return { k: 'list', at, items: [] };
    }
    const first = this.expression();
    if (this.isPunct(':')) {
      this.next();
      const entries: Array<[Expr, Expr]> = [[first, this.expression()]];
      while (this.isPunct(',')) {
        this.next();
        const key = this.expression();
        this.expect(':');
        entries.push([key, this.expression()]);
      }
      this.expect(']');
      return { k: 'map', at, entries };
    }
    const items = [first];
    while (this.isPunct(',')) {
      this.next();
      items.push(this.expression());
    }
    this.expect(']');
    return { k: 'list', at, items };
  }
}

const LONG_MAX = 9223372036854775807n;
const INT_MAX = 2147483647n;

function parseInteger(t: Token, fail: (message: string) => never): bigint {
  const value = BigInt(t.text); // text is [0-9]+ or 0x[0-9a-f]+ from the lexer
  // Java rejects int literals above 2^31 (2^31 itself only negated) and long literals above 2^63.
  if (t.kind === 'int' && value > INT_MAX + 1n) fail(`Invalid int constant [${t.text}].`);
  if (t.kind === 'long' && value > LONG_MAX + 1n) fail(`Invalid long constant [${t.text}].`);
  return value;
}
