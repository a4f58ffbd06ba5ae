import { analyze, type Analyzer } from '../../analysis/analyzer';
import type { Query } from '../../query/query-ast';
import type { QsNode } from '../../query/query-string-ast';

/** The analyzed query terms per field that the plain highlighter marks (match, match_phrase, multi_match, term). */
export function collectHighlightTerms(
  query: Query,
  analyzerFor: (field: string) => Analyzer | undefined,
  fieldsFor: (pattern: string) => string[],
  out = new Map<string, Set<string>>(),
): Map<string, Set<string>> {
  const add = (field: string, text: string, analyzed: boolean): void => {
    const analyzer = analyzerFor(field);
    if (!analyzer) return;
    const set = out.get(field) ?? new Set<string>();
    for (const term of analyzed ? analyze(analyzer, text).map((t) => t.term) : [text]) set.add(term);
    out.set(field, set);
  };
  switch (query.kind) {
    case 'match':
    case 'match_phrase':
    case 'match_phrase_prefix':
      add(query.field, String(query.query), true);
      break;
    case 'multi_match':
      for (const spec of query.fields)
        for (const field of fieldsFor(spec.field)) add(field, query.query, true);
      break;
    case 'term':
      add(query.field, String(query.value), false);
      break;
    case 'terms':
      for (const v of query.values) add(query.field, String(v), false);
      break;
    case 'bool':
      for (const q of [...query.must, ...query.should, ...query.filter])
        collectHighlightTerms(q, analyzerFor, fieldsFor, out);
      break;
    case 'constant_score':
      collectHighlightTerms(query.filter, analyzerFor, fieldsFor, out);
      break;
    case 'dis_max':
      for (const q of query.queries) collectHighlightTerms(q, analyzerFor, fieldsFor, out);
      break;
    case 'query_string':
    case 'simple_query_string': {
      // The words of its terms and phrases on their fields (the default ones when none is named).
      if ('reason' in query.tree) break;
      const defaults =
        query.fields?.map((f) => f.field) ??
        (query.kind === 'query_string' && query.defaultField ? [query.defaultField] : ['*']);
      const stack: QsNode[] = [query.tree];
      while (stack.length > 0) {
        const node = stack.pop()!;
        if (node.t === 'bool') {
          for (const c of node.clauses) if (c.occur !== 'must_not') stack.push(c.node);
        } else if (node.t === 'boost') stack.push(node.node);
        else if (node.t === 'term' || node.t === 'multi' || node.t === 'phrase') {
          if (node.field === '_exists_') continue;
          for (const pattern of node.field === undefined ? defaults : [node.field])
            for (const field of fieldsFor(pattern)) add(field, node.text, true);
        }
      }
      break;
    }
    default:
      break;
  }
  return out;
}

export interface HighlightOptions {
  preTag: string;
  postTag: string;
  fragmentSize: number;
  numberOfFragments: number;
}

/**
 * Lucene's plain highlighter with SimpleFragmenter: tokens that match a query term are wrapped in tags;
 * text is cut into fragments of about fragment_size characters at token boundaries; fragments without a
 * match are dropped; number_of_fragments 0 returns each whole value highlighted.
 */
export function highlightValues(
  values: string[],
  analyzer: Analyzer,
  terms: Set<string>,
  options: HighlightOptions,
): string[] {
  const fragments: string[] = [];
  for (const text of values) {
    const tokens = analyze(analyzer, text).filter((t) => terms.has(t.term));
    if (tokens.length === 0) continue;
    if (options.numberOfFragments === 0) {
      fragments.push(mark(text, 0, text.length, tokens, options));
      continue;
    }
    const all = analyze(analyzer, text);
    let start = 0;
    let fragmentIndex = 1;
    const bounds: [number, number][] = [];
    for (const token of all) {
      if (token.endOffset > options.fragmentSize * fragmentIndex && token.startOffset > start) {
        bounds.push([start, token.startOffset]);
        start = token.startOffset;
        fragmentIndex += 1;
      }
    }
    bounds.push([start, text.length]);
    for (const [from, to] of bounds) {
      const inside = tokens.filter((t) => t.startOffset >= from && t.endOffset <= to);
      if (inside.length > 0) fragments.push(mark(text, from, to, inside, options).trim());
    }
  }
  return options.numberOfFragments === 0 ? fragments : fragments.slice(0, options.numberOfFragments);
}

function mark(
  text: string,
  from: number,
  to: number,
  tokens: { startOffset: number; endOffset: number }[],
  options: HighlightOptions,
): string {
  let out = '';
  let at = from;
  for (const t of tokens) {
    out +=
      text.slice(at, t.startOffset) +
      options.preTag +
      text.slice(t.startOffset, t.endOffset) +
      options.postTag;
    at = t.endOffset;
  }
  return out + text.slice(at, to);
}
