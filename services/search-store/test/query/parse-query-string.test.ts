import { lex } from '../../src/query/parse/query-string-lexer';
import {
  discardEscapeChar,
  parseQueryStringSyntax,
  type QueryStringSyntaxOptions,
} from '../../src/query/parse/parse-query-string';
import type { QsNode, QsSyntaxError } from '../../src/query/query-string-ast';

const OR: QueryStringSyntaxOptions = { defaultOperator: 'or', allowLeadingWildcard: true, maxDepth: 30 };
const AND: QueryStringSyntaxOptions = { ...OR, defaultOperator: 'and' };

function tree(text: string, options = OR): QsNode {
  const result = parseQueryStringSyntax(text, options);
  if (result === undefined || 'reason' in result)
    throw new Error(`no tree for ${text}: ${JSON.stringify(result)}`);
  return result;
}

function error(text: string, options = OR): QsSyntaxError {
  const result = parseQueryStringSyntax(text, options);
  if (result === undefined || !('reason' in result)) throw new Error(`expected an error for ${text}`);
  return result;
}

const term = (text: string, field?: string): QsNode => ({ t: 'term', field, text });
/** A bool's clauses as `occur:text` for terms, to read the boolean logic at a glance. */
function shape(node: QsNode): unknown {
  if (node.t === 'bool') return node.clauses.map((c) => `${c.occur}:${String(shape(c.node))}`);
  if (node.t === 'term') return node.field ? `${node.field}=${node.text}` : node.text;
  if (node.t === 'multi') return `[${node.text}]`;
  if (node.t === 'boost') return `${String(shape(node.node))}^${node.boost}`;
  return node.t;
}

describe('query_string lexer (Lucene classic QueryParser tokens)', () => {
  it('takes the longest token, keywords winning ties', () => {
    expect(lex('AND ANDY && &&x OR || NOT !').map((t) => t.kind)).toEqual([
      'AND',
      'TERM',
      'AND',
      'TERM',
      'OR',
      'OR',
      'NOT',
      'NOT',
      'EOF',
    ]);
  });

  it('tells terms, prefixes, wildcards, regexps, quotes and slops apart', () => {
    expect(lex('quick bro* qu?ck *x /ab\\/c/ "a \\" b"~2 roam~1 *').map((t) => [t.kind, t.image])).toEqual([
      ['TERM', 'quick'],
      ['PREFIXTERM', 'bro*'],
      ['WILDTERM', 'qu?ck'],
      ['WILDTERM', '*x'],
      ['REGEXPTERM', '/ab\\/c/'],
      ['QUOTED', '"a \\" b"'],
      ['FUZZY_SLOP', '~2'],
      ['TERM', 'roam'],
      ['FUZZY_SLOP', '~1'],
      ['STAR', '*'],
      ['EOF', ''],
    ]);
  });

  it('lexes ranges and boosts in their own states', () => {
    expect(lex('[1 TO *} x^2.5').map((t) => t.kind)).toEqual([
      'RANGEIN_START',
      'RANGE_GOOP',
      'RANGE_TO',
      'RANGE_GOOP',
      'RANGEEX_END',
      'TERM',
      'CARAT',
      'NUMBER',
      'EOF',
    ]);
  });

  it('keeps escaped reserved characters inside a term', () => {
    expect(lex('a\\:b\\(c\\) x-y+z').map((t) => [t.kind, t.image])).toEqual([
      ['TERM', 'a\\:b\\(c\\)'],
      ['TERM', 'x-y+z'],
      ['EOF', ''],
    ]);
  });

  it('is linear on hostile input (no backtracking): 16× the input, far under 256× the time', () => {
    const hostile = [
      (n: number) => '/'.repeat(n),
      (n: number) => `"${'\\"'.repeat(n / 2)}`,
      (n: number) => `[${'"'.repeat(n)}`,
      (n: number) => 'a '.repeat(n / 2),
      (n: number) => 'a AND '.repeat(n / 6),
      (n: number) => '\\'.repeat(n),
    ];
    /** The fastest of three runs, to see through a busy machine. */
    const time = (n: number): number => {
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        const started = process.hrtime.bigint();
        for (const make of hostile) parseQueryStringSyntax(make(n), OR);
        best = Math.min(best, Number(process.hrtime.bigint() - started));
      }
      return best;
    };
    time(4_000); // warm the JIT
    expect(time(64_000) / time(4_000)).toBeLessThan(64);
  });
});

describe('query_string grammar', () => {
  it('parses field:value and a lone term', () => {
    expect(tree('title:fox')).toEqual(term('fox', 'title'));
    expect(tree('fox')).toEqual(term('fox'));
  });

  it('groups a run of bare terms for analysis (split_on_whitespace false)', () => {
    expect(tree('quick brown fox')).toEqual({
      t: 'bool',
      clauses: [{ occur: 'should', node: { t: 'multi', text: 'quick brown fox', occur: 'should' } }],
    });
    // A term bound to what follows (field, boost, AND) leaves the run.
    expect(shape(tree('quick brown AND fox'))).toEqual(['should:quick', 'must:brown', 'must:fox']);
    expect(shape(tree('quick title:fox'))).toEqual(['should:quick', 'should:title=fox']);
  });

  it("applies Lucene's addClause: AND, OR, NOT, &&, ||, !, +, -", () => {
    expect(shape(tree('a AND b'))).toEqual(['must:a', 'must:b']);
    expect(shape(tree('a && b'))).toEqual(['must:a', 'must:b']);
    expect(shape(tree('a OR b'))).toEqual(['should:a', 'should:b']);
    expect(shape(tree('a || b'))).toEqual(['should:a', 'should:b']);
    expect(shape(tree('a NOT b'))).toEqual(['should:a', 'must_not:b']);
    expect(shape(tree('a !b'))).toEqual(['should:a', 'must_not:b']);
    expect(shape(tree('+a -b c'))).toEqual(['must:a', 'must_not:b', 'should:c']);
    expect(shape(tree('a AND NOT b'))).toEqual(['must:a', 'must_not:b']);
    // default_operator AND: bare clauses are required, OR makes both sides optional.
    expect(shape(tree('a -b', AND))).toEqual(['must:a', 'must_not:b']);
    expect(shape(tree('a OR b', AND))).toEqual(['should:a', 'should:b']);
    expect(shape(tree('a AND b OR c'))).toEqual(['must:a', 'must:b', 'should:c']);
  });

  it('parses groups, field groups and boosts', () => {
    expect(shape(tree('(a OR b) AND c'))).toEqual(['must:should:a,should:b', 'must:c']);
    const grouped = tree('title:(a OR b)');
    expect(shape(grouped)).toEqual(['should:title=a', 'should:title=b']);
    expect(tree('fox^2')).toEqual({ t: 'boost', node: term('fox'), boost: 2 });
    expect(shape(tree('(a OR b)^1.5'))).toEqual('should:a,should:b^1.5');
  });

  it('parses phrases with slop, prefixes, wildcards, _exists_ and ranges', () => {
    expect(tree('"quick fox"~2')).toEqual({ t: 'phrase', text: 'quick fox', slop: 2 });
    expect(tree('body:"a b"')).toEqual({ t: 'phrase', field: 'body', text: 'a b', slop: undefined });
    expect(tree('bro*')).toEqual({ t: 'prefix', text: 'bro' });
    expect(tree('qu?ck')).toEqual({ t: 'wildcard', text: 'qu?ck' });
    expect(tree('title:*')).toEqual({ t: 'wildcard', field: 'title', text: '*' });
    expect(tree('_exists_:title')).toEqual(term('title', '_exists_'));
    expect(tree('n:[1 TO 5}')).toEqual({
      t: 'range',
      field: 'n',
      lower: '1',
      upper: '5',
      includeLower: true,
      includeUpper: false,
    });
    expect(tree('n:{* TO "x y"]')).toEqual({
      t: 'range',
      field: 'n',
      lower: undefined,
      upper: 'x y',
      includeLower: false,
      includeUpper: true,
    });
    expect(tree('age:>=10')).toEqual(term('>=10', 'age'));
  });

  it('parses fuzzy terms and regexps', () => {
    expect(tree('roam~1')).toEqual({ t: 'fuzzy', text: 'roam', edits: '1' });
    expect(tree('name:/jo.*n/')).toEqual({ t: 'regexp', field: 'name', text: 'jo.*n' });
  });

  it('unescapes terms and field names, \\u escapes included', () => {
    expect(tree('a\\:b')).toEqual(term('a:b'));
    expect(tree('my\\ field:x')).toEqual(term('x', 'my field'));
    expect(discardEscapeChar('\\u0041\\*')).toBe('A*');
  });

  it('refuses a leading wildcard when allow_leading_wildcard is false', () => {
    expect(error('*ick', { ...OR, allowLeadingWildcard: false }).cause.reason).toBe(
      "'*' or '?' not allowed as first character in WildcardQuery",
    );
  });
});

describe('query_string syntax errors, as ES words them', () => {
  it('reports an unexpected end with the tokens JavaCC expected', () => {
    const e = error('heart(');
    expect(e.reason).toBe(
      `Cannot parse 'heart(': Encountered "<EOF>" at line 1, column 6.\nWas expecting one of:\n    <NOT> ...\n    "+" ...\n    "-" ...\n    <BAREOPER> ...\n    "(" ...\n    "*" ...\n    <QUOTED> ...\n    <TERM> ...\n    <PREFIXTERM> ...\n    <WILDTERM> ...\n    <REGEXPTERM> ...\n    "[" ...\n    "{" ...\n    <NUMBER> ...\n    <TERM> ...\n    `,
    );
    expect(e.cause).toEqual({
      type: 'parse_exception',
      reason: e.reason.slice("Cannot parse 'heart(': ".length),
    });
  });

  it('names the unexpected token and its 0-based column', () => {
    expect(error('Income+tax:+exemptions~4').reason).toMatch(
      /^Cannot parse 'Income\+tax:\+exemptions~4': Encountered " "\+" "\+ "" at line 1, column 11\.\nWas expecting one of:\n {4}<BAREOPER> \.\.\./,
    );
    expect(error('a)').reason).toMatch(
      /^Cannot parse 'a\)': Encountered " "\)" "\) "" at line 1, column 1\./,
    );
    expect(error('foo:').reason).toMatch(/Encountered "<EOF>" at line 1, column 4\./);
    expect(error('').reason).toMatch(/^Cannot parse '': Encountered "<EOF>" at line 1, column 0\./);
  });

  it('reports lexical errors as token_mgr_error', () => {
    const e = error('foo\\');
    expect(e.cause.type).toBe('token_mgr_error');
    expect(e.reason).toMatch(
      /^Cannot parse 'foo\\': Lexical error at line 1, column 5\.\s+Encountered: <EOF> after : "\\\\"/,
    );
    expect(error('"unclosed').cause.type).toBe('token_mgr_error');
    expect(error('x^a').cause.type).toBe('token_mgr_error');
  });

  it('reports an unclosed range or group', () => {
    expect(error('[1 TO 2').reason).toMatch(/Encountered "<EOF>"/);
    expect(error('(a OR b').reason).toMatch(/Encountered "<EOF>"/);
  });

  it('bounds parenthesis nesting at the query nesting limit', () => {
    expect(() => tree(`${'('.repeat(30)}a${')'.repeat(30)}`)).not.toThrow();
    expect(error(`${'('.repeat(31)}a${')'.repeat(31)}`).reason).toMatch(/nest deeper than 30 levels/);
  });
});
