import type { Occur, QsNode } from '../query-string-ast';

/**
 * Lucene's SimpleQueryParser (what ES's `simple_query_string` extends): `+` AND, `|` OR, `-` NOT,
 * `"…"` phrase, `…*` prefix, `( )` precedence, `~N` fuzzy / phrase slop, `\` escape, whitespace. It
 * never fails: an unclosed quote or parenthesis is an ordinary character. The tree built is Lucene's:
 * each change of operator starts a new parent, a negated branch is `bool(must_not x, should *:*)`.
 *
 * Linear in the input but for parentheses, whose content is rescanned once per level; nesting
 * deeper than `maxDepth` levels takes the parentheses as ordinary characters.
 */
export const SQS_FLAGS = {
  ALL: -1,
  NONE: 0,
  AND: 1 << 0,
  NOT: 1 << 1,
  OR: 1 << 2,
  PREFIX: 1 << 3,
  PHRASE: 1 << 4,
  PRECEDENCE: 1 << 5,
  ESCAPE: 1 << 6,
  WHITESPACE: 1 << 7,
  FUZZY: 1 << 8,
  NEAR: 1 << 9,
  SLOP: 1 << 9,
} as const;

export type SqsFlag = keyof typeof SQS_FLAGS;

interface State {
  data: string;
  index: number;
  end: number;
  top?: QsNode;
  current?: Occur;
  previous?: Occur;
  not: number;
  depth: number;
}

export interface SimpleSyntaxOptions {
  flags: number;
  defaultOperator: 'or' | 'and';
  maxDepth: number;
}

const WS = new Set([' ', '\t', '\n', '\r']);

export function parseSimpleQueryStringSyntax(text: string, options: SimpleSyntaxOptions): QsNode | undefined {
  const parser = new SimpleParser(options);
  const state: State = { data: text, index: 0, end: text.length, not: 0, depth: 0 };
  parser.subQuery(state);
  return state.top;
}

class SimpleParser {
  constructor(private readonly options: SimpleSyntaxOptions) {}

  private on(flag: SqsFlag, state?: State): boolean {
    if (flag === 'PRECEDENCE' && state && state.depth >= this.options.maxDepth) return false;
    return (this.options.flags & SQS_FLAGS[flag]) !== 0;
  }

  subQuery(state: State): void {
    while (state.index < state.end) {
      const c = state.data[state.index]!;
      if (c === '(' && this.on('PRECEDENCE', state)) this.consumeSubQuery(state);
      else if (c === ')' && this.on('PRECEDENCE', state)) state.index++;
      else if (c === '"' && this.on('PHRASE')) this.consumePhrase(state);
      else if (c === '+' && this.on('AND')) {
        if (state.current === undefined && state.top !== undefined) state.current = 'must';
        state.index++;
      } else if (c === '|' && this.on('OR')) {
        if (state.current === undefined && state.top !== undefined) state.current = 'should';
        state.index++;
      } else if (c === '-' && this.on('NOT')) {
        state.not++;
        state.index++;
        continue; // the not count survives until the next token
      } else if (WS.has(c) && this.on('WHITESPACE')) state.index++;
      else this.consumeToken(state);
      state.not = 0;
    }
  }

  private consumeSubQuery(state: State): void {
    const start = ++state.index;
    let precedence = 1;
    let escaped = false;
    while (state.index < state.end) {
      const c = state.data[state.index]!;
      if (!escaped) {
        if (c === '\\' && this.on('ESCAPE')) {
          escaped = true;
          state.index++;
          continue;
        } else if (c === '(') precedence++;
        else if (c === ')') {
          precedence--;
          if (precedence === 0) break;
        }
      }
      escaped = false;
      state.index++;
    }
    if (state.index === state.end) {
      state.index = start; // never closed: the parenthesis is an ordinary character
    } else if (state.index === start) {
      state.current = undefined;
      state.index++;
    } else {
      const sub: State = { data: state.data, index: start, end: state.index, not: 0, depth: state.depth + 1 };
      this.subQuery(sub);
      this.build(state, sub.top);
      state.index++;
    }
  }

  private consumePhrase(state: State): void {
    const start = ++state.index;
    let text = '';
    let escaped = false;
    let hasSlop = false;
    while (state.index < state.end) {
      const c = state.data[state.index]!;
      if (!escaped) {
        if (c === '\\' && this.on('ESCAPE')) {
          escaped = true;
          state.index++;
          continue;
        } else if (c === '"') {
          if (state.end > state.index + 1 && state.data[state.index + 1] === '~' && this.on('NEAR')) {
            state.index++;
            if (state.end > state.index + 1) hasSlop = true;
          }
          break;
        }
      }
      escaped = false;
      text += c;
      state.index++;
    }
    if (state.index === state.end) {
      state.index = start; // never closed: the quote is an ordinary character
    } else if (state.index === start) {
      state.current = undefined;
      state.index++;
    } else {
      const slop = hasSlop ? this.fuzziness(state) : 0;
      this.build(state, { t: 'phrase', text, slop });
      state.index++;
    }
  }

  private finished(state: State): boolean {
    const c = state.data[state.index]!;
    return (
      (c === '"' && this.on('PHRASE')) ||
      (c === '|' && this.on('OR')) ||
      (c === '+' && this.on('AND')) ||
      ((c === '(' || c === ')') && this.on('PRECEDENCE', state)) ||
      (WS.has(c) && this.on('WHITESPACE'))
    );
  }

  /** parseFuzziness: the digits after `~` up to the token's end; `~` alone is 2; garbage is 0. */
  private fuzziness(state: State): number {
    if (state.data[state.index] !== '~') return 0;
    let text = '';
    while (state.index < state.end) {
      state.index++;
      if (state.index < state.end) {
        if (this.finished(state)) break;
        text += state.data[state.index];
      }
    }
    if (text === '') return 2;
    const n = /^[+-]?\d{1,9}$/.test(text) ? Number(text) : 0;
    return Math.max(0, n);
  }

  private consumeToken(state: State): void {
    let text = '';
    let escaped = false;
    let prefix = false;
    let fuzzy = false;
    while (state.index < state.end) {
      const c = state.data[state.index]!;
      if (!escaped) {
        if (c === '\\' && this.on('ESCAPE')) {
          escaped = true;
          prefix = false;
          state.index++;
          continue;
        } else if (this.finished(state)) break;
        else if (text.length > 0 && c === '~' && this.on('FUZZY')) {
          fuzzy = true;
          break;
        }
        prefix = text.length > 0 && c === '*' && this.on('PREFIX');
      }
      escaped = false;
      text += c;
      state.index++;
    }
    if (text.length === 0) return;
    let branch: QsNode;
    if (fuzzy) {
      const edits = Math.min(this.fuzziness(state), 2);
      branch = edits === 0 ? { t: 'term', text } : { t: 'fuzzy', text, edits: String(edits) };
    } else if (prefix) branch = { t: 'prefix', text: text.slice(0, -1) };
    else branch = { t: 'term', text };
    this.build(state, branch);
  }

  /** buildQueryTree: a new parent whenever the operator changes, so earlier clauses keep their grouping. */
  private build(state: State, input: QsNode | undefined): void {
    if (input === undefined) return;
    let branch = input;
    if (state.not % 2 === 1) {
      branch = {
        t: 'bool',
        clauses: [
          { occur: 'must_not', node: branch },
          { occur: 'should', node: { t: 'match_all' } },
        ],
      };
    }
    if (state.top === undefined) state.top = branch;
    else {
      state.current ??= this.options.defaultOperator === 'and' ? 'must' : 'should';
      if (state.previous !== state.current || state.top.t !== 'bool') {
        state.top = { t: 'bool', clauses: [{ occur: state.current, node: state.top }] };
      }
      (state.top as Extract<QsNode, { t: 'bool' }>).clauses.push({ occur: state.current, node: branch });
      state.previous = state.current;
    }
    state.current = undefined;
  }
}
