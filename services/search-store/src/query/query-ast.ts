import type { FunctionScoreNode } from './function-score-ast';
import type { NestedQuery } from './nested-query';
import type { QueryStringQuery, SimpleQueryStringQuery } from './query-string-ast';

/**
 * The typed query tree the DSL parses into (Elasticsearch's query builders, in Lucene's nouns); `_name`
 * is the query's name for `matched_queries` (search/hits/matched-queries.ts).
 */
export type Query = (
  | NestedQuery<Query>
  | { kind: 'match_all'; boost: number }
  | { kind: 'match_none'; boost: number }
  | {
      kind: 'match';
      field: string;
      query: string | number | boolean;
      operator: 'or' | 'and';
      minimumShouldMatch?: string;
      analyzer?: string;
      zeroTermsQuery: 'none' | 'all';
      boost: number;
      fuzzy?: MatchFuzziness;
    }
  | { kind: 'match_phrase'; field: string; query: string; slop: number; analyzer?: string; boost: number }
  | {
      kind: 'match_phrase_prefix';
      field: string;
      query: string;
      slop: number;
      maxExpansions: number;
      analyzer?: string;
      boost: number;
    }
  | {
      kind: 'multi_match';
      query: string;
      fields: { field: string; boost: number }[];
      type: 'best_fields' | 'most_fields' | 'cross_fields' | 'phrase' | 'phrase_prefix' | 'bool_prefix';
      tieBreaker: number;
      operator: 'or' | 'and';
      minimumShouldMatch?: string;
      slop: number;
      analyzer?: string;
      boost: number;
      fuzzy?: MatchFuzziness;
    }
  | {
      kind: 'bool';
      must: Query[];
      should: Query[];
      filter: Query[];
      mustNot: Query[];
      minimumShouldMatch?: string;
      boost: number;
    }
  | { kind: 'term'; field: string; value: string | number | boolean; caseInsensitive: boolean; boost: number }
  | {
      kind: 'terms';
      field: string;
      values: (string | number | boolean)[];
      boost: number;
      /** ES terms lookup: `values` come from another document (search/terms-lookup.ts fills them). */
      lookup?: TermsLookup;
    }
  | {
      kind: 'range';
      field: string;
      gt?: string | number;
      gte?: string | number;
      lt?: string | number;
      lte?: string | number;
      format?: string;
      timeZone?: string;
      boost: number;
    }
  | { kind: 'exists'; field: string; boost: number }
  | { kind: 'ids'; values: string[]; boost: number }
  | { kind: 'prefix'; field: string; value: string; caseInsensitive: boolean; boost: number }
  | { kind: 'wildcard'; field: string; value: string; caseInsensitive: boolean; boost: number }
  | {
      /** Lucene's FuzzyQuery; `fuzziness` as ES writes it: "AUTO", "AUTO:low,high", "0", "1" or "2". */
      kind: 'fuzzy';
      field: string;
      value: string;
      fuzziness: string;
      prefixLength: number;
      maxExpansions: number;
      transpositions: boolean;
      boost: number;
      /** ES `rewrite` (default top_terms_blended_freqs_${max_expansions}); absent = the default. */
      rewrite?: string;
    }
  | {
      /** Lucene's RegexpQuery; `flags` is Lucene's RegExp syntax bitmask (ALL = 0xff, NONE = 0). */
      kind: 'regexp';
      field: string;
      value: string;
      flags: number;
      caseInsensitive: boolean;
      maxDeterminizedStates: number;
      boost: number;
      rewrite?: string;
    }
  | { kind: 'constant_score'; filter: Query; boost: number }
  | { kind: 'dis_max'; queries: Query[]; tieBreaker: number; boost: number }
  | {
      kind: 'match_bool_prefix';
      field: string;
      query: string;
      operator: 'or' | 'and';
      minimumShouldMatch?: string;
      analyzer?: string;
      boost: number;
    }
  | QueryStringQuery
  | SimpleQueryStringQuery
  | VectorQuery
  | GeoQuery
  | FunctionScoreQuery
) & { _name?: string };

/** `function_score` (function-score-ast.ts). */
export type FunctionScoreQuery = FunctionScoreNode<Query>;

/** Vector search (issue 22): parsed in parse/parse-knn.ts and parse-vector-queries.ts, compiled in compile/compile-knn.ts. */
export type VectorQuery =
  | {
      kind: 'knn';
      field: string;
      queryVector: number[];
      k: number;
      numCandidates: number;
      filter: Query[];
      similarity?: number;
      boost: number;
    }
  | {
      kind: 'script_score';
      query: Query;
      source: string;
      params: Record<string, unknown>;
      minScore?: number;
      boost: number;
    }
  | { kind: 'rrf'; retrievers: Query[]; rankConstant: number; rankWindowSize: number; boost: number }
  | { kind: 'sparse_vector'; field: string; weights: Map<string, number>; boost: number };

/** geo_point queries: parsed in parse/parse-geo-*.ts, compiled in compile/compile-geo-*.ts. */
export type GeoQuery =
  | {
      kind: 'geo_distance';
      field: string;
      center: { lat: number; lon: number };
      meters: number;
      validation: GeoValidationMethod;
      ignoreUnmapped: boolean;
      boost: number;
    }
  | {
      kind: 'geo_bounding_box';
      field: string;
      top: number;
      left: number;
      bottom: number;
      right: number;
      validation: GeoValidationMethod;
      ignoreUnmapped: boolean;
      boost: number;
    };

/** ES GeoValidationMethod: STRICT refuses bad coordinates, COERCE normalises them, IGNORE_MALFORMED takes them. */
export type GeoValidationMethod = 'STRICT' | 'COERCE' | 'IGNORE_MALFORMED';

export type QueryKind = Query['kind'];

/** ES TermsLookup: the values at `path` in document `id` of `index`. */
export interface TermsLookup {
  index: string;
  id: string;
  path: string;
  routing?: string;
}

/** match / multi_match `fuzziness` with its companions (ES MatchQueryParser's FuzzyQuery per token). */
export interface MatchFuzziness {
  fuzziness: string;
  prefixLength: number;
  maxExpansions: number;
  transpositions: boolean;
  rewrite?: string;
}
