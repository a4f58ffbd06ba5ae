/**
 * Elasticsearch's SuggestingErrorOnUnknown: for an unknown query name, the registered names whose
 * Lucene LevenshteinDistance similarity (1 − edits / longer length) is above 0.5, best first, as
 * " did you mean [x]?" or " did you mean any of [x, y]?". The candidates are the query names of a
 * default Elasticsearch 8 node (suggestions name what ES knows, including queries we refuse).
 */
export const ES_QUERY_NAMES: readonly string[] = [
  'bool',
  'boosting',
  'combined_fields',
  'constant_score',
  'dis_max',
  'distance_feature',
  'exists',
  'function_score',
  'fuzzy',
  'geo_bounding_box',
  'geo_distance',
  'geo_grid',
  'geo_polygon',
  'geo_shape',
  'has_child',
  'has_parent',
  'ids',
  'intervals',
  'knn',
  'match',
  'match_all',
  'match_bool_prefix',
  'match_none',
  'match_phrase',
  'match_phrase_prefix',
  'more_like_this',
  'multi_match',
  'nested',
  'parent_id',
  'percolate',
  'pinned',
  'prefix',
  'query_string',
  'range',
  'rank_feature',
  'regexp',
  'rule',
  'script',
  'script_score',
  'semantic',
  'shape',
  'simple_query_string',
  'span_containing',
  'span_field_masking',
  'span_first',
  'span_multi',
  'span_near',
  'span_not',
  'span_or',
  'span_term',
  'span_within',
  'sparse_vector',
  'term',
  'terms',
  'terms_set',
  'text_expansion',
  'weighted_tokens',
  'wildcard',
  'wrapper',
];

function similarity(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j]!;
      prev[j] = Math.min(above + 1, prev[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return Math.fround(1 - prev[b.length]! / Math.max(a.length, b.length));
}

export function suggestQueryName(unknown: string): string {
  const scored = ES_QUERY_NAMES.map((name) => ({ name, score: similarity(unknown, name) }))
    .filter((s) => s.score > 0.5)
    .sort((x, y) => y.score - x.score || (x.name < y.name ? -1 : 1))
    .map((s) => s.name);
  if (scored.length === 0) return '';
  return scored.length === 1
    ? ` did you mean [${scored[0]}]?`
    : ` did you mean any of [${scored.join(', ')}]?`;
}
