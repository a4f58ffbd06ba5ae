/**
 * What `query_string` and `simple_query_string` parse into before the index is known: Lucene's
 * clauses with their fields still names or patterns (`undefined` = the query's default fields). Each
 * index expands the tree against its own mapping (query/compile/expand-query-string.ts), as every
 * Elasticsearch shard runs the query parser against its own mapping.
 */
export type Occur = 'must' | 'should' | 'must_not';

export type QsNode =
  /** A BooleanQuery of clauses (getBooleanQuery; only prohibited clauses: ES adds match_all). */
  | { t: 'bool'; clauses: { occur: Occur; node: QsNode }[] }
  /** Consecutive bare terms analysed together (split_on_whitespace false), flattened into the bool around. */
  | { t: 'multi'; field?: string; text: string; occur: 'must' | 'should' }
  /** A bare term: analysed, one field → match, several → per the `type`. */
  | { t: 'term'; field?: string; text: string }
  | { t: 'phrase'; field?: string; text: string; slop?: number }
  | { t: 'prefix'; field?: string; text: string }
  | { t: 'wildcard'; field?: string; text: string }
  | { t: 'regexp'; field?: string; text: string }
  | { t: 'fuzzy'; field?: string; text: string; edits?: string }
  | {
      t: 'range';
      field?: string;
      lower?: string;
      upper?: string;
      includeLower: boolean;
      includeUpper: boolean;
    }
  | { t: 'match_all' }
  | { t: 'boost'; node: QsNode; boost: number };

export type MultiMatchType =
  'best_fields' | 'most_fields' | 'cross_fields' | 'phrase' | 'phrase_prefix' | 'bool_prefix';

/** A syntax error kept until the query runs on an index: ES raises it in the query phase, per shard. */
export interface QsSyntaxError {
  /** `parse_exception` "Cannot parse '…': …". */
  reason: string;
  /** The JavaCC error below it: `parse_exception` or `token_mgr_error`. */
  cause: { type: string; reason: string };
}

export interface QueryStringOptions {
  query: string;
  /** The parsed tree, or the syntax error the query phase reports. */
  tree: QsNode | QsSyntaxError;
  /** `fields` (with `^boost`), else `default_field`, else `index.query.default_field` (default `*`). */
  fields?: { field: string; boost: number }[];
  defaultField?: string;
  defaultOperator: 'or' | 'and';
  analyzer?: string;
  quoteAnalyzer?: string;
  quoteFieldSuffix?: string;
  phraseSlop: number;
  analyzeWildcard: boolean;
  lenient?: boolean;
  minimumShouldMatch?: string;
  type: MultiMatchType;
  tieBreaker?: number;
  /** What `term~` and `term~N` become: fuzziness (for `~` alone), prefix length, expansions, transpositions. */
  fuzzy: {
    fuzziness: string;
    prefixLength: number;
    maxExpansions: number;
    transpositions: boolean;
    rewrite?: string;
  };
  /** `/regexp/`'s max_determinized_states. */
  maxDeterminizedStates?: number;
  boost: number;
}

export type QueryStringQuery = { kind: 'query_string' } & QueryStringOptions;
export type SimpleQueryStringQuery = { kind: 'simple_query_string' } & QueryStringOptions;

export function isSyntaxError(tree: QsNode | QsSyntaxError): tree is QsSyntaxError {
  return 'reason' in tree;
}
