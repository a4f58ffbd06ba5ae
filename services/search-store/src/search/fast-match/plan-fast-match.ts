import { rootSharesNestedFields } from '../../query/nested-scope';
import { analyze, findAnalyzer } from '../../analysis/analyzer';
import { keywordNormalizer, searchAnalyzerFor } from '../../index/analyze-document';
import { matchFieldPattern, type IndexReader } from '../../query/index-reader';
import { minimumShouldMatch } from '../../query/minimum-should-match';
import { flattenedTarget } from '../../query/compile/compile-flattened';
import type { MatchFuzziness, Query } from '../../query/query-ast';
import { FuzzyExpansions } from './fuzzy-expansions';
import type { SearchRequest } from '../../query/parse/search-request';
import { expandMatchBoolPrefix, expandQueryString } from '../../query/compile/expand-query-string';
import { namedQueries } from '../../query/parse/query-name';

/**
 * The scoring tree of the fast path: the same semantics compile-query.ts gives these queries in SQL
 * (API-NOTES §A2.3), so the Node scorer returns bit-identical float32 scores.
 */
export type MatchNode =
  /** A BooleanQuery of BM25 term clauses on one text field (`match`); duplicated terms stay clauses. */
  | { kind: 'terms'; path: string; terms: string[]; required: number; boost: number }
  /** term/terms as compileTerms gives them unscored: any of the terms, the boost as a constant score. */
  | { kind: 'any'; path: string; terms: string[]; boost: number }
  | { kind: 'none' }
  /**
   * One FuzzyQuery per term (compile-fuzzy.ts), `required` of them: each clause's candidates, of which
   * the `size` present ones of highest boost score with their clause's largest document frequency.
   */
  | {
      kind: 'fuzzy';
      path: string;
      clauses: { term: string; boost: number }[][];
      size: number;
      required: number;
      boost: number;
    }
  /** multi_match best_fields: max, plus tie_breaker × the others (DisjunctionMaxQuery as SQL computes it). */
  | { kind: 'dis_max'; parts: MatchNode[]; tieBreaker: number }
  /** multi_match most_fields: the sum of the matching fields' scores. */
  | { kind: 'sum'; parts: MatchNode[] }
  | {
      kind: 'bool';
      must: MatchNode[];
      filter: MatchNode[];
      should: MatchNode[];
      mustNot: MatchNode[];
      minimumShouldMatch: number;
    };

/** One index's part of a fast search: its scoring tree and the (field, term) pairs it reads. */
export interface FastMatchPlan {
  reader: IndexReader;
  root: MatchNode;
  /** Distinct field paths and `path\u0000term` keys the tree reads. */
  fields: string[];
  terms: { path: string; term: string }[];
  /** The whole query is one match requiring every one of several distinct terms (operator and). */
  conjunctive: boolean;
}

const f = Math.fround;

/**
 * Whether the request's options allow the fast path (before the indices are known): relevance order
 * only, no aggregations, search_after, runtime fields, explain or sort. Anything else is the SQL path.
 */
export function isFastMatchRequest(request: SearchRequest): boolean {
  return (
    request.sort.length === 0 &&
    request.aggregations === undefined &&
    request.suggest === undefined &&
    request.searchAfter === undefined &&
    request.runtimeMappings === undefined &&
    request.indicesBoost === undefined &&
    request.rescore === undefined &&
    request.collapse === undefined &&
    // matched_queries are read on the SQL path (search/hits/matched-queries.ts).
    namedQueries(request.query).size === 0 &&
    namedQueries(request.postFilter).size === 0 &&
    !request.explain &&
    // terminate_after, timeout, profile: the SQL path's (search/execute-search.ts).
    request.terminateAfter === undefined &&
    (request.timeoutMs ?? -1) < 0 &&
    !request.profile &&
    isFastMatchShape(request.query) &&
    (request.postFilter === undefined || isFastMatchShape(request.postFilter))
  );
}

function isFastMatchShape(query: Query): boolean {
  switch (query.kind) {
    case 'match':
      return !query.field.startsWith('_') && query.fuzzy?.rewrite === undefined;
    case 'multi_match':
      return (
        (query.type === 'best_fields' || query.type === 'most_fields') && query.fuzzy?.rewrite === undefined
      );
    case 'fuzzy':
      return !query.field.startsWith('_') && query.rewrite === undefined;
    case 'term':
      return !query.field.startsWith('_') && !query.caseInsensitive;
    case 'terms':
      return !query.field.startsWith('_');
    case 'query_string':
    case 'simple_query_string':
    case 'match_bool_prefix':
      // Expanded per index (planNode); what the expansion holds decides the path.
      return true;
    case 'bool':
      return (
        query.must.length + query.filter.length + query.should.length > 0 &&
        [...query.must, ...query.filter, ...query.should, ...query.mustNot].every(isFastMatchShape)
      );
    default:
      return false;
  }
}

/** The plan for one index, or undefined when something in it needs the SQL path. */
export function planFastMatch(
  reader: IndexReader,
  request: SearchRequest,
  expansions = new FuzzyExpansions(),
): FastMatchPlan | undefined {
  if (reader.filter || Object.keys(reader.mappings.runtime ?? {}).length > 0) return undefined;
  // Fields shared with nested objects (include_in_parent/root) hold their doc keys too: SQL drops them.
  if (rootSharesNestedFields(reader)) return undefined;
  const query: Query = request.postFilter
    ? { kind: 'bool', must: [request.query], filter: [request.postFilter], should: [], mustNot: [], boost: 1 }
    : request.query;
  let root: MatchNode | undefined;
  try {
    root = planNode(reader, query, 1, expansions);
  } catch {
    // An unknown analyzer and the like: the SQL path raises the error ES would.
    return undefined;
  }
  if (!root) return undefined;
  const fields = new Set<string>();
  const terms = new Map<string, { path: string; term: string }>();
  const walk = (node: MatchNode): void => {
    if (node.kind === 'terms' || node.kind === 'any') {
      fields.add(node.path);
      for (const term of node.terms) terms.set(`${node.path}\u0000${term}`, { path: node.path, term });
    } else if (node.kind === 'fuzzy') {
      fields.add(node.path);
      for (const { term } of node.clauses.flat())
        terms.set(`${node.path}\u0000${term}`, { path: node.path, term });
    } else if (node.kind === 'dis_max' || node.kind === 'sum') node.parts.forEach(walk);
    else if (node.kind === 'bool')
      [...node.must, ...node.filter, ...node.should, ...node.mustNot].forEach(walk);
  };
  walk(root);
  const conjunctive =
    root.kind === 'terms' && root.required === root.terms.length && new Set(root.terms).size > 1;
  return { reader, root, fields: [...fields], terms: [...terms.values()], conjunctive };
}

function planNode(
  reader: IndexReader,
  query: Query,
  boost: number,
  expansions: FuzzyExpansions,
): MatchNode | undefined {
  const b = f(boost * query.boost);
  switch (query.kind) {
    case 'match':
      return planMatch(reader, query.field, query, b, expansions);
    case 'multi_match':
      // Reached inside expanded queries too: only the types planMultiMatch scores.
      return query.type === 'best_fields' || query.type === 'most_fields'
        ? planMultiMatch(reader, query, b, expansions)
        : undefined;
    case 'bool':
      return planBool(reader, query, b, expansions);
    case 'fuzzy': {
      const field = reader.fields.get(query.field);
      if (!field) return { kind: 'none' };
      if (field.type !== 'keyword' && field.type !== 'text') return undefined;
      const value =
        field.type === 'keyword' ? keywordNormalizer(field, reader.settings)(query.value) : query.value;
      return planFuzzy(reader, query.field, [value], 1, query, b, expansions);
    }
    case 'term':
      return query.caseInsensitive ? undefined : planTerms(reader, query.field, [query.value], b, true);
    case 'terms':
      return planTerms(reader, query.field, query.values, b, false);
    case 'query_string':
    case 'simple_query_string':
      return planNode(reader, expandQueryString(reader, query), boost, expansions);
    case 'match_bool_prefix':
      return planNode(reader, expandMatchBoolPrefix(reader, query), boost, expansions);
    default:
      return undefined;
  }
}

type MatchOptions = Pick<
  Extract<Query, { kind: 'match' }>,
  'query' | 'operator' | 'minimumShouldMatch' | 'analyzer' | 'zeroTermsQuery' | 'fuzzy'
>;

/** compileFuzzyClauses: the default (blended) rewrite; its argument errors are the SQL path's to raise. */
function planFuzzy(
  reader: IndexReader,
  path: string,
  terms: string[],
  required: number,
  options: MatchFuzziness,
  boost: number,
  expansions: FuzzyExpansions,
): MatchNode | undefined {
  if (options.prefixLength < 0 || options.maxExpansions <= 0) return undefined;
  const clauses = terms.map((term) => expansions.get(reader.indexId, path, term, options) ?? []);
  return { kind: 'fuzzy', path, clauses, size: options.maxExpansions, required, boost };
}

/** compileMatch: a text field's analyzed terms; other field types go to the SQL path. */
function planMatch(
  reader: IndexReader,
  path: string,
  query: MatchOptions,
  boost: number,
  expansions: FuzzyExpansions,
): MatchNode | undefined {
  if (path.startsWith('_')) return undefined;
  const field = reader.fields.get(path);
  // A key of a flattened field (`labels.release`) is no mapped field: the SQL path answers it.
  if (!field) return flattenedTarget(reader, path) ? undefined : { kind: 'none' };
  if (query.fuzzy && field.type === 'keyword') {
    const value = keywordNormalizer(field, reader.settings)(String(query.query));
    return planFuzzy(reader, path, [value], 1, query.fuzzy, boost, expansions);
  }
  if (field.type === 'keyword') return planTerms(reader, path, [query.query], boost, true);
  if (field.type !== 'text') return undefined;
  // The analyzer compile-term-clauses' analyzerFor picks: the query's, else the field's search analyzer.
  const analyzer = query.analyzer
    ? findAnalyzer(query.analyzer, reader.settings)
    : searchAnalyzerFor(field, reader.settings);
  const tokens = analyze(analyzer, String(query.query));
  if (tokens.length === 0) return query.zeroTermsQuery === 'all' ? undefined : { kind: 'none' };
  const terms = tokens.map((t) => t.term);
  const required =
    query.operator === 'and'
      ? terms.length
      : Math.max(1, minimumShouldMatch(terms.length, query.minimumShouldMatch));
  if (query.fuzzy) return planFuzzy(reader, path, terms, required, query.fuzzy, boost, expansions);
  return { kind: 'terms', path, terms, required, boost };
}

/** ES `index.max_terms_count` default: beyond it the SQL path raises ES's error. */
const MAX_TERMS_COUNT = 65536;

/**
 * compileTerms on keyword and text fields: the values as they are (keyword fields through their
 * normalizer); one scored value is a BM25 term clause, otherwise a constant score. Numbers, dates and
 * booleans (doc values) go to the SQL path.
 */
function planTerms(
  reader: IndexReader,
  path: string,
  values: (string | number | boolean)[],
  boost: number,
  scored: boolean,
): MatchNode | undefined {
  const field = reader.fields.get(path);
  if (values.length > MAX_TERMS_COUNT) return undefined;
  if (!field && flattenedTarget(reader, path)) return undefined;
  if (!field || values.length === 0) return { kind: 'none' };
  if (field.type !== 'keyword' && field.type !== 'text') return undefined;
  const normalize = field.type === 'keyword' ? keywordNormalizer(field, reader.settings) : (v: string) => v;
  const terms = values.map((v) => normalize(String(v)));
  return scored && terms.length === 1
    ? { kind: 'terms', path, terms, required: 1, boost }
    : { kind: 'any', path, terms: [...new Set(terms)], boost };
}

/** compileMultiMatch for best_fields and most_fields over text fields. */
function planMultiMatch(
  reader: IndexReader,
  query: Extract<Query, { kind: 'multi_match' }>,
  boost: number,
  expansions: FuzzyExpansions,
): MatchNode | undefined {
  const paths = [...reader.fields.keys()];
  const parts: MatchNode[] = [];
  for (const spec of query.fields) {
    for (const path of paths.filter(matchFieldPattern(spec.field))) {
      const field = reader.fields.get(path)!;
      if (spec.field.includes('*') && field.type !== 'text' && field.type !== 'keyword') continue;
      // compileMultiMatch turns a target's errors (a number field and a word) into no match.
      const part = planMatch(
        reader,
        path,
        {
          query: query.query,
          operator: query.operator,
          minimumShouldMatch: query.minimumShouldMatch,
          analyzer: query.analyzer,
          zeroTermsQuery: 'none',
          fuzzy: query.fuzzy,
        },
        f(f(boost * spec.boost) * 1),
        expansions,
      );
      if (!part) return undefined;
      parts.push(part);
    }
  }
  if (parts.length === 0) return { kind: 'none' };
  return query.type === 'most_fields'
    ? { kind: 'sum', parts }
    : { kind: 'dis_max', parts, tieBreaker: query.tieBreaker };
}

/** compileBool: must and should scored with the bool's boost, filter and must_not unscored. */
function planBool(
  reader: IndexReader,
  query: Extract<Query, { kind: 'bool' }>,
  boost: number,
  expansions: FuzzyExpansions,
): MatchNode | undefined {
  const required = query.must.length + query.filter.length;
  if (required + query.should.length === 0) return undefined;
  const all = (queries: Query[], b: number): MatchNode[] | undefined => {
    const out: MatchNode[] = [];
    for (const q of queries) {
      const node = planNode(reader, q, b, expansions);
      if (!node) return undefined;
      out.push(node);
    }
    return out;
  };
  const must = all(query.must, boost);
  const filter = all(query.filter, 1);
  const should = all(query.should, boost);
  const mustNot = all(query.mustNot, 1);
  if (!must || !filter || !should || !mustNot) return undefined;
  let msm =
    query.minimumShouldMatch !== undefined
      ? minimumShouldMatch(query.should.length, query.minimumShouldMatch)
      : 0;
  if (query.minimumShouldMatch === undefined && required === 0 && query.should.length > 0) msm = 1;
  return { kind: 'bool', must, filter, should, mustNot, minimumShouldMatch: msm };
}
