import type { IndexReader } from '../query/index-reader';
import type { Query } from '../query/query-ast';

/** The Lucene query class ES's profile names for each of our query kinds (its `type`). */
const LUCENE_TYPES: Record<string, string> = {
  match_all: 'MatchAllDocsQuery',
  match_none: 'MatchNoDocsQuery',
  match: 'BooleanQuery',
  match_phrase: 'PhraseQuery',
  match_phrase_prefix: 'MultiPhrasePrefixQuery',
  multi_match: 'DisjunctionMaxQuery',
  bool: 'BooleanQuery',
  term: 'TermQuery',
  terms: 'TermInSetQuery',
  range: 'IndexOrDocValuesQuery',
  exists: 'FieldExistsQuery',
  ids: 'TermInSetQuery',
  prefix: 'PrefixQuery',
  wildcard: 'WildcardQuery',
  fuzzy: 'FuzzyQuery',
  regexp: 'RegexpQuery',
  constant_score: 'ConstantScoreQuery',
  dis_max: 'DisjunctionMaxQuery',
  match_bool_prefix: 'BooleanQuery',
  knn: 'DocAndScoreQuery',
  script_score: 'ScriptScoreQuery',
};

/** Lucene's Weight/Scorer timings a query node reports (QueryTimingType), each with its `_count`. */
const QUERY_TIMINGS = [
  'set_min_competitive_score',
  'match',
  'shallow_advance',
  'next_doc',
  'score',
  'compute_max_score',
  'build_scorer',
  'create_weight',
  'advance',
  'count_weight',
] as const;

type Breakdown = Record<string, number>;

function breakdown(
  timed: Partial<Record<(typeof QUERY_TIMINGS)[number], { nanos: number; count: number }>>,
): Breakdown {
  const out: Breakdown = {};
  for (const name of QUERY_TIMINGS) {
    out[name] = timed[name]?.nanos ?? 0;
    out[`${name}_count`] = timed[name]?.count ?? 0;
  }
  return out;
}

function describe(query: Query): string {
  const q = query as Query & { field?: string; value?: unknown; query?: unknown };
  if (q.kind === 'match_all') return '*:*';
  if (q.field !== undefined && (q.value !== undefined || q.query !== undefined)) {
    return `${q.field}:${String(q.value ?? q.query)}`;
  }
  if (q.field !== undefined) return `${q.kind}(${q.field})`;
  return q.kind;
}

function childrenOf(query: Query): Query[] {
  switch (query.kind) {
    case 'bool':
      return [...query.must, ...query.filter, ...query.should, ...query.mustNot];
    case 'dis_max':
      return query.queries;
    case 'constant_score':
      return [query.filter];
    default:
      return [];
  }
}

export interface ProfiledNode {
  type: string;
  description: string;
  time_in_nanos: number;
  breakdown: Breakdown;
  children?: ProfiledNode[];
}

/** The query tree in ES's profile shape; only the root carries time (see the note in docs/COVERAGE.md). */
function profileTree(query: Query, timed?: { compile: number; execute: number }): ProfiledNode {
  const children = childrenOf(query).map((child) => profileTree(child));
  const node: ProfiledNode = {
    type: LUCENE_TYPES[query.kind] ?? 'Query',
    description: describe(query),
    time_in_nanos: timed ? timed.compile + timed.execute : 0,
    breakdown: breakdown(
      timed
        ? { create_weight: { nanos: timed.compile, count: 1 }, next_doc: { nanos: timed.execute, count: 1 } }
        : {},
    ),
  };
  if (children.length > 0) node.children = children;
  return node;
}

/** Wall-clock stages of one search, in nanoseconds (process.hrtime). */
export class SearchProfiler {
  compileNanos = 0;
  executeNanos = 0;
  fetchNanos = 0;
  aggsNanos = 0;

  static now(): bigint {
    return process.hrtime.bigint();
  }

  static since(start: bigint): number {
    return Number(process.hrtime.bigint() - start);
  }

  /**
   * ES's `profile` section: one entry per searched index (our shard), each with the query tree
   * (create_weight = building the SQL plan; next_doc = running the one statement that matches,
   * scores, counts and pages), the collector, the aggregations and the fetch phase.
   */
  render(readers: IndexReader[], query: Query, aggregations: string[] | undefined, fetched: number): unknown {
    const collect = this.executeNanos;
    return {
      shards: readers.map((reader) => ({
        id: `[search-store][${reader.name}][0]`,
        node_id: 'search-store',
        shard_id: 0,
        index: reader.name,
        cluster: '(local)',
        searches: [
          {
            query: [profileTree(query, { compile: this.compileNanos, execute: this.executeNanos })],
            rewrite_time: 0,
            collector: [
              { name: 'QueryPhaseCollector', reason: 'search_query_phase', time_in_nanos: collect },
            ],
          },
        ],
        aggregations: (aggregations ?? []).map((name) => ({
          type: 'SqlAggregator',
          description: name,
          time_in_nanos: this.aggsNanos,
          breakdown: {
            initialize: 0,
            initialize_count: 0,
            build_leaf_collector: 0,
            build_leaf_collector_count: 0,
            collect: this.aggsNanos,
            collect_count: 1,
            post_collection: 0,
            post_collection_count: 0,
            build_aggregation: 0,
            build_aggregation_count: 0,
            reduce: 0,
            reduce_count: 0,
          },
        })),
        fetch: {
          type: 'fetch',
          description: '',
          time_in_nanos: this.fetchNanos,
          breakdown: {
            load_stored_fields: this.fetchNanos,
            load_stored_fields_count: fetched,
            next_reader: 0,
            next_reader_count: fetched > 0 ? 1 : 0,
            load_source: 0,
            load_source_count: 0,
          },
          debug: { stored_fields: ['_id', '_routing', '_source'] },
        },
      })),
    };
  }
}
