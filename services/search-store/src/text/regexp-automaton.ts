import { parseRegexp, type RegexpNode } from './regexp-syntax';

/**
 * A Lucene regexp compiled to a deterministic automaton over Unicode code points, as Lucene's
 * RegexpQuery does (RegExp.toAutomaton, then Operations.determinize): a Thompson NFA from the tree,
 * complement and intersection through determinized sub-automata, and one subset construction at
 * the end. A term is then decided in one pass, one transition per code point (binary search over
 * the state's sorted intervals): linear time whatever the pattern, never a backtracking matcher.
 *
 * Determinizing can blow up (a pattern like `(a|b)*a(a|b){20}` needs 2^20 states), so every
 * construction spends from a work budget, as Lucene's determinizeWorkLimit (ES
 * `max_determinized_states`, default 10000): past it, TooComplexToDeterminizeError, which ES reports
 * as `too_complex_to_determinize_exception`. Lucene counts effort as states plus transitions visited
 * with a budget of ten times the limit; so do we, over our own constructions (the numbers in the
 * message are ours, not Lucene's).
 */
const MAX_CODE_POINT = 0x10ffff;
/** ES RegexpQueryBuilder.DEFAULT_DETERMINIZE_WORK_LIMIT. */
export const DEFAULT_MAX_DETERMINIZED_STATES = 10000;

export class TooComplexToDeterminizeError extends Error {
  constructor(states: number, transitions: number, limit: number) {
    super(
      `Determinizing automaton with ${states} states and ${transitions} transitions would require more than ${limit} effort.`,
    );
    this.name = 'TooComplexToDeterminizeError';
  }
}

interface Edge {
  min: number;
  max: number;
  to: number;
}

/** A Thompson NFA under construction: states with epsilon moves and interval transitions. */
class Nfa {
  readonly eps: number[][] = [];
  readonly edges: Edge[][] = [];

  constructor(private readonly budget: Budget) {}

  state(): number {
    this.budget.spend(1, this);
    this.eps.push([]);
    this.edges.push([]);
    return this.eps.length - 1;
  }

  edge(from: number, min: number, max: number, to: number): void {
    this.budget.spend(1, this);
    this.edges[from]!.push({ min, max, to });
  }

  get transitions(): number {
    return this.edges.reduce((n, e) => n + e.length, 0);
  }
}

class Budget {
  private spent = 0;

  constructor(readonly limit: number) {}

  spend(effort: number, nfa?: Nfa): void {
    this.spent += effort;
    if (this.spent >= this.limit * 10) {
      throw new TooComplexToDeterminizeError(nfa?.eps.length ?? 0, nfa?.transitions ?? 0, this.limit);
    }
  }
}

/** A deterministic automaton: per state, sorted disjoint intervals and their targets. */
export interface Dfa {
  accept: boolean[];
  mins: number[][];
  maxs: number[][];
  to: number[][];
}

/** A fragment of the NFA: one entry, one exit. */
interface Fragment {
  start: number;
  end: number;
}

export interface RegexpOptions {
  flags: number;
  caseInsensitive: boolean;
  maxDeterminizedStates: number;
}

/** Parses and compiles `pattern`; throws RegexpSyntaxError or TooComplexToDeterminizeError. */
export function compileRegexp(pattern: string, options: RegexpOptions): RegexpMatcher {
  const tree = parseRegexp(pattern, options.flags);
  const budget = new Budget(options.maxDeterminizedStates);
  const builder = new Builder(budget, options.caseInsensitive);
  const nfa = new Nfa(budget);
  const fragment = builder.build(nfa, tree);
  return new RegexpMatcher(determinize(nfa, fragment.start, fragment.end, budget));
}

export class RegexpMatcher {
  constructor(readonly dfa: Dfa) {}

  /** Whether the automaton accepts the whole term: one step per code point. */
  matches(term: string): boolean {
    const { dfa } = this;
    let state = 0;
    for (let i = 0; i < term.length; i++) {
      const c = term.codePointAt(i)!;
      if (c > 0xffff) i += 1;
      state = step(dfa, state, c);
      if (state < 0) return false;
    }
    return dfa.accept[state]!;
  }

  /**
   * The literal text every accepted term starts with (Lucene's AutomatonTermsEnum seeks there): the
   * run of states with a single one-character transition and no accept. Narrows the dictionary scan
   * to a btree range.
   */
  commonPrefix(): string {
    const { dfa } = this;
    let state = 0;
    let out = '';
    const seen = new Set<number>();
    while (!dfa.accept[state] && dfa.mins[state]!.length === 1 && !seen.has(state)) {
      const min = dfa.mins[state]![0]!;
      if (min !== dfa.maxs[state]![0]) break;
      seen.add(state);
      out += String.fromCodePoint(min);
      state = dfa.to[state]![0]!;
    }
    return out;
  }
}

function step(dfa: Dfa, state: number, c: number): number {
  const mins = dfa.mins[state]!;
  let lo = 0;
  let hi = mins.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < mins[mid]!) hi = mid - 1;
    else if (c > dfa.maxs[state]![mid]!) lo = mid + 1;
    else return dfa.to[state]![mid]!;
  }
  return -1;
}

class Builder {
  constructor(
    private readonly budget: Budget,
    private readonly caseInsensitive: boolean,
  ) {}

  build(nfa: Nfa, node: RegexpNode): Fragment {
    switch (node.type) {
      case 'string': {
        const start = nfa.state();
        let at = start;
        for (const c of node.codePoints) {
          const next = nfa.state();
          for (const [min, max] of this.caseVariants(c)) nfa.edge(at, min, max, next);
          at = next;
        }
        return { start, end: at };
      }
      case 'ranges': {
        const start = nfa.state();
        const end = nfa.state();
        for (const [min, max] of node.ranges) nfa.edge(start, min, max, end);
        return { start, end };
      }
      case 'anyString': {
        const start = nfa.state();
        nfa.edge(start, 0, MAX_CODE_POINT, start);
        return { start, end: start };
      }
      case 'emptyLanguage':
        return { start: nfa.state(), end: nfa.state() };
      case 'concat': {
        const a = this.build(nfa, node.a);
        const b = this.build(nfa, node.b);
        nfa.eps[a.end]!.push(b.start);
        return { start: a.start, end: b.end };
      }
      case 'union': {
        const start = nfa.state();
        const end = nfa.state();
        for (const part of [node.a, node.b]) {
          const f = this.build(nfa, part);
          nfa.eps[start]!.push(f.start);
          nfa.eps[f.end]!.push(end);
        }
        return { start, end };
      }
      case 'repeat':
        return this.repeat(nfa, node.a, node.min, node.max);
      case 'complement':
        return embed(nfa, complement(this.subDfa(node.a)));
      case 'intersection':
        return embed(nfa, intersect(this.subDfa(node.a), this.subDfa(node.b), this.budget));
      case 'interval':
        return this.build(nfa, intervalTree(node.min, node.max, node.digits));
    }
  }

  private subDfa(node: RegexpNode): Dfa {
    const nfa = new Nfa(this.budget);
    const f = this.build(nfa, node);
    return determinize(nfa, f.start, f.end, this.budget);
  }

  /** Lucene expands {n,m} into n copies and m − n optional ones; the budget bounds the copies. */
  private repeat(nfa: Nfa, node: RegexpNode, min: number, max: number): Fragment {
    const start = nfa.state();
    let at = start;
    for (let i = 0; i < min; i++) {
      const f = this.build(nfa, node);
      nfa.eps[at]!.push(f.start);
      at = f.end;
    }
    if (max === -1) {
      const f = this.build(nfa, node);
      const end = nfa.state();
      nfa.eps[at]!.push(f.start, end);
      nfa.eps[f.end]!.push(f.start, end);
      return { start, end };
    }
    const end = nfa.state();
    for (let i = min; i < max; i++) {
      const f = this.build(nfa, node);
      nfa.eps[at]!.push(f.start, end);
      at = f.end;
    }
    nfa.eps[at]!.push(end);
    return { start, end };
  }

  /** Lucene's ASCII_CASE_INSENSITIVE: a character and its other case, for ASCII letters only. */
  private caseVariants(c: number): [number, number][] {
    if (!this.caseInsensitive || c > 0x7f) return [[c, c]];
    const ch = String.fromCharCode(c);
    const other = (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()).charCodeAt(0);
    return other === c
      ? [[c, c]]
      : [
          [c, c],
          [other, other],
        ];
  }
}

/**
 * Subset construction over intervals (Lucene's Operations.determinize): a DFA state is a set of NFA
 * states; its outgoing intervals are cut at every boundary of its members' transitions.
 */
function determinize(nfa: Nfa, start: number, end: number, budget: Budget): Dfa {
  const dfa: Dfa = { accept: [], mins: [], maxs: [], to: [] };
  const ids = new Map<string, number>();
  const sets: number[][] = [];
  const mark = new Uint32Array(nfa.eps.length);
  let generation = 0;
  const closure = (seeds: Iterable<number>): number[] => {
    generation += 1;
    const out: number[] = [];
    const stack = [...seeds];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (mark[s] === generation) continue;
      mark[s] = generation;
      out.push(s);
      for (const t of nfa.eps[s]!) if (mark[t] !== generation) stack.push(t);
    }
    return out.sort((a, b) => a - b);
  };
  const idOf = (set: number[]): number => {
    const key = set.join(',');
    let id = ids.get(key);
    if (id === undefined) {
      budget.spend(set.length, nfa);
      id = sets.length;
      ids.set(key, id);
      sets.push(set);
      dfa.accept.push(set.includes(end));
      dfa.mins.push([]);
      dfa.maxs.push([]);
      dfa.to.push([]);
    }
    return id;
  };
  idOf(closure([start]));
  for (let d = 0; d < sets.length; d++) {
    const edges = sets[d]!.flatMap((s) => nfa.edges[s]!);
    if (edges.length === 0) continue;
    // Sweep the interval boundaries, keeping the multiset of live targets.
    const points = [...new Set(edges.flatMap((e) => [e.min, e.max + 1]))].sort((a, b) => a - b);
    budget.spend(points.length + edges.length, nfa);
    const starts = [...edges].sort((a, b) => a.min - b.min);
    const ends = [...edges].sort((a, b) => a.max - b.max);
    const live = new Map<number, number>();
    let si = 0;
    let ei = 0;
    for (let p = 0; p < points.length - 1; p++) {
      const lo = points[p]!;
      while (ei < ends.length && ends[ei]!.max < lo) {
        const t = ends[ei++]!.to;
        const n = live.get(t)! - 1;
        if (n === 0) live.delete(t);
        else live.set(t, n);
      }
      while (si < starts.length && starts[si]!.min <= lo) {
        const t = starts[si++]!.to;
        live.set(t, (live.get(t) ?? 0) + 1);
      }
      if (live.size === 0) continue;
      budget.spend(live.size, nfa);
      const target = idOf(closure(live.keys()));
      const hi = points[p + 1]! - 1;
      const last = dfa.to[d]!.length - 1;
      // Adjacent intervals to the same state merge, keeping the state's list short.
      if (last >= 0 && dfa.to[d]![last] === target && dfa.maxs[d]![last] === lo - 1) dfa.maxs[d]![last] = hi;
      else {
        dfa.mins[d]!.push(lo);
        dfa.maxs[d]!.push(hi);
        dfa.to[d]!.push(target);
      }
    }
  }
  return dfa;
}

/** Every string the DFA rejects: the DFA made total with a sink state, acceptance flipped. */
function complement(dfa: Dfa): Dfa {
  const n = dfa.accept.length;
  const sink = n;
  const out: Dfa = { accept: [], mins: [], maxs: [], to: [] };
  for (let s = 0; s <= n; s++) {
    const mins: number[] = [];
    const maxs: number[] = [];
    const to: number[] = [];
    let next = 0;
    const count = s < n ? dfa.mins[s]!.length : 0;
    for (let i = 0; i < count; i++) {
      if (dfa.mins[s]![i]! > next) {
        mins.push(next);
        maxs.push(dfa.mins[s]![i]! - 1);
        to.push(sink);
      }
      mins.push(dfa.mins[s]![i]!);
      maxs.push(dfa.maxs[s]![i]!);
      to.push(dfa.to[s]![i]!);
      next = dfa.maxs[s]![i]! + 1;
    }
    if (next <= MAX_CODE_POINT) {
      mins.push(next);
      maxs.push(MAX_CODE_POINT);
      to.push(sink);
    }
    out.accept.push(s < n ? !dfa.accept[s]! : true);
    out.mins.push(mins);
    out.maxs.push(maxs);
    out.to.push(to);
  }
  return out;
}

/** The product automaton: strings both accept. */
function intersect(a: Dfa, b: Dfa, budget: Budget): Dfa {
  const out: Dfa = { accept: [], mins: [], maxs: [], to: [] };
  const ids = new Map<number, number>();
  const pairs: [number, number][] = [];
  const width = b.accept.length;
  const idOf = (x: number, y: number): number => {
    const key = x * width + y;
    let id = ids.get(key);
    if (id === undefined) {
      budget.spend(1);
      id = pairs.length;
      ids.set(key, id);
      pairs.push([x, y]);
      out.accept.push(a.accept[x]! && b.accept[y]!);
      out.mins.push([]);
      out.maxs.push([]);
      out.to.push([]);
    }
    return id;
  };
  idOf(0, 0);
  for (let p = 0; p < pairs.length; p++) {
    const [x, y] = pairs[p]!;
    let i = 0;
    let j = 0;
    while (i < a.mins[x]!.length && j < b.mins[y]!.length) {
      const lo = Math.max(a.mins[x]![i]!, b.mins[y]![j]!);
      const hi = Math.min(a.maxs[x]![i]!, b.maxs[y]![j]!);
      if (lo <= hi) {
        budget.spend(1);
        const target = idOf(a.to[x]![i]!, b.to[y]![j]!);
        out.mins[p]!.push(lo);
        out.maxs[p]!.push(hi);
        out.to[p]!.push(target);
      }
      if (a.maxs[x]![i]! < b.maxs[y]![j]!) i += 1;
      else j += 1;
    }
  }
  return out;
}

/** A DFA copied into the NFA as a fragment: its accepting states lead to one exit. */
function embed(nfa: Nfa, dfa: Dfa): Fragment {
  const base = nfa.eps.length;
  for (let s = 0; s < dfa.accept.length; s++) nfa.state();
  const end = nfa.state();
  for (let s = 0; s < dfa.accept.length; s++) {
    for (let i = 0; i < dfa.mins[s]!.length; i++)
      nfa.edge(base + s, dfa.mins[s]![i]!, dfa.maxs[s]![i]!, base + dfa.to[s]![i]!);
    if (dfa.accept[s]) nfa.eps[base + s]!.push(end);
  }
  return { start: base, end };
}

/**
 * Lucene's Automata.makeDecimalInterval as a tree: with `digits` > 0 the numbers are written with
 * exactly that many digits (zero-padded); with 0, any number of leading zeros is accepted.
 */
function intervalTree(min: number, max: number, digits: number): RegexpNode {
  const parts: RegexpNode[] = [];
  if (digits > 0) {
    const lo = String(min).padStart(digits, '0');
    const hi = String(max).padStart(digits, '0');
    if (lo.length === digits && hi.length <= digits) parts.push(sameLength(lo, hi));
    else if (lo.length === digits) parts.push(sameLength(lo, '9'.repeat(digits)));
  } else {
    const zeros: RegexpNode = { type: 'repeat', a: digit('0', '0'), min: 0, max: -1 };
    if (min === 0) parts.push({ type: 'repeat', a: digit('0', '0'), min: 1, max: -1 });
    const from = Math.max(min, 1);
    for (let len = String(from).length; len <= String(max).length; len++) {
      const lo = Math.max(from, len === 1 ? 1 : 10 ** (len - 1));
      const hi = Math.min(max, 10 ** len - 1);
      if (lo <= hi) parts.push({ type: 'concat', a: zeros, b: sameLength(String(lo), String(hi)) });
    }
  }
  if (parts.length === 0) return { type: 'emptyLanguage' };
  return parts.reduce((a, b) => ({ type: 'union', a, b }));
}

function digit(lo: string, hi: string): RegexpNode {
  return { type: 'ranges', ranges: [[lo.charCodeAt(0), hi.charCodeAt(0)]] };
}

/** Strings of lo.length digits between lo and hi inclusive (equal lengths). */
function sameLength(lo: string, hi: string): RegexpNode {
  if (lo.length === 0) return { type: 'string', codePoints: [] };
  const restLo = lo.slice(1);
  const restHi = hi.slice(1);
  if (lo[0] === hi[0]) return { type: 'concat', a: digit(lo[0]!, lo[0]!), b: sameLength(restLo, restHi) };
  const nines = '9'.repeat(restLo.length);
  const zeros = '0'.repeat(restLo.length);
  let tree: RegexpNode = {
    type: 'union',
    a: { type: 'concat', a: digit(lo[0]!, lo[0]!), b: sameLength(restLo, nines) },
    b: { type: 'concat', a: digit(hi[0]!, hi[0]!), b: sameLength(zeros, restHi) },
  };
  const midLo = lo.charCodeAt(0) + 1;
  const midHi = hi.charCodeAt(0) - 1;
  if (midLo <= midHi) {
    const any: RegexpNode = { type: 'repeat', a: digit('0', '9'), min: restLo.length, max: restLo.length };
    tree = {
      type: 'union',
      a: tree,
      b: { type: 'concat', a: { type: 'ranges', ranges: [[midLo, midHi]] }, b: any },
    };
  }
  return tree;
}
