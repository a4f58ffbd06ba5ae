/** The typed query tree the DSL parses into (Elasticsearch's query builders, in Lucene's nouns). */
export type Query =
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
      type: 'best_fields' | 'most_fields' | 'phrase' | 'phrase_prefix';
      tieBreaker: number;
      operator: 'or' | 'and';
      minimumShouldMatch?: string;
      slop: number;
      analyzer?: string;
      boost: number;
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
  | { kind: 'terms'; field: string; values: (string | number | boolean)[]; boost: number }
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
  | { kind: 'constant_score'; filter: Query; boost: number }
  | { kind: 'dis_max'; queries: Query[]; tieBreaker: number; boost: number };

export type QueryKind = Query['kind'];
