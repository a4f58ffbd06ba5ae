/** How the search engine runs requests, beyond what each request asks (set once where the app is built). */
export interface SearchOptions {
  /**
   * `false` sends every search and count through the SQL plans, never the fast path
   * (search/fast-search.ts): for differential tests that compare the two.
   */
  fastMatch?: boolean;
  /**
   * Most documents a runtime field is evaluated over per index and field, in queries, sort and
   * aggregations alike (default DEFAULT_MAX_RUNTIME_DOCS, aggs/load-document-values.ts).
   */
  maxRuntimeDocs?: number;
}
