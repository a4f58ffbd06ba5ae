/**
 * The URL parameters each route accepts, from the Elasticsearch 8 REST API specification
 * (rest-api-spec/api/*.json). Parameters we accept and ignore (routing, timeouts, shard counts) are
 * listed so clients that send them work; anything else is refused by `checkParams`.
 */
const WRITE_COMMON = ['refresh', 'routing', 'timeout', 'wait_for_active_shards', 'require_alias'];
const SOURCE = ['_source', '_source_includes', '_source_excludes', '_source_include', '_source_exclude'];
const VERSIONING = ['version', 'version_type', 'if_seq_no', 'if_primary_term'];
const GET_COMMON = ['preference', 'realtime', 'refresh', 'routing', 'version', 'version_type', ...SOURCE];
const WILDCARDS = ['allow_no_indices', 'expand_wildcards', 'ignore_unavailable', 'ignore_throttled'];
const QUERY_STRING = ['q', 'df', 'analyzer', 'analyze_wildcard', 'default_operator', 'lenient'];
const MASTER = ['master_timeout', 'timeout'];
/** Every cat action reads these (ES `AbstractCatAction.RESPONSE_PARAMS`, plus `help` and `local`). */
const CAT_COMMON = [
  'format',
  'h',
  'help',
  'v',
  'ts',
  's',
  'bytes',
  'size',
  'time',
  'pri',
  'local',
  'master_timeout',
];

/** delete_by_query.json and update_by_query.json share these. */
const BY_QUERY = [
  ...QUERY_STRING,
  ...WILDCARDS.filter((p) => p !== 'ignore_throttled'),
  'from',
  'conflicts',
  'preference',
  'routing',
  'scroll',
  'search_type',
  'search_timeout',
  'max_docs',
  'sort',
  'stats',
  'terminate_after',
  'version',
  'request_cache',
  'refresh',
  'timeout',
  'wait_for_active_shards',
  'scroll_size',
  'wait_for_completion',
  'requests_per_second',
  'slices',
];

export const ROUTE_PARAMS = {
  index: [
    ...WRITE_COMMON,
    ...VERSIONING,
    'op_type',
    'pipeline',
    'require_data_stream',
    'include_source_on_error',
  ],
  create: [
    ...WRITE_COMMON,
    'version',
    'version_type',
    'pipeline',
    'require_data_stream',
    'include_source_on_error',
  ],
  delete: [...WRITE_COMMON, ...VERSIONING],
  update: [
    ...WRITE_COMMON,
    ...SOURCE,
    'if_seq_no',
    'if_primary_term',
    'lang',
    'retry_on_conflict',
    'include_source_on_error',
  ],
  get: [...GET_COMMON, 'stored_fields', 'force_synthetic_source'],
  getSource: [...GET_COMMON, 'stored_fields'],
  // mget.json
  mget: [
    'preference',
    'realtime',
    'refresh',
    'routing',
    ...SOURCE,
    'stored_fields',
    'force_synthetic_source',
  ],
  createIndex: ['master_timeout', 'timeout', 'wait_for_active_shards'],
  getIndex: [...WILDCARDS, 'flat_settings', 'include_defaults', 'local', 'master_timeout', 'features'],
  deleteIndex: [...WILDCARDS, 'master_timeout', 'timeout'],
  refresh: [...WILDCARDS],
  search: [
    ...WILDCARDS,
    ...QUERY_STRING,
    ...SOURCE,
    'allow_partial_search_results',
    'batched_reduce_size',
    'ccs_minimize_roundtrips',
    'docvalue_fields',
    'explain',
    'from',
    'include_named_queries_score',
    'max_concurrent_shard_requests',
    'pre_filter_shard_size',
    'preference',
    'request_cache',
    'rest_total_hits_as_int',
    'routing',
    'scroll',
    'search_type',
    'seq_no_primary_term',
    'size',
    'sort',
    'stats',
    'stored_fields',
    'suggest_field',
    'suggest_mode',
    'suggest_size',
    'suggest_text',
    'terminate_after',
    'timeout',
    'track_scores',
    'track_total_hits',
    'typed_keys',
    'version',
    'force_synthetic_source',
  ],
  count: [...WILDCARDS, ...QUERY_STRING, 'min_score', 'preference', 'routing', 'terminate_after'],
  // scroll.json, clear_scroll.json, open_point_in_time.json, close_point_in_time.json
  scroll: ['scroll', 'scroll_id', 'rest_total_hits_as_int'],
  clearScroll: [],
  openPointInTime: [
    'keep_alive',
    'ignore_unavailable',
    'expand_wildcards',
    'preference',
    'routing',
    'allow_partial_search_results',
    'max_concurrent_shard_requests',
  ],
  closePointInTime: [],
  // msearch.json
  msearch: [
    ...WILDCARDS,
    'ccs_minimize_roundtrips',
    'include_named_queries_score',
    'max_concurrent_searches',
    'max_concurrent_shard_requests',
    'pre_filter_shard_size',
    'rest_total_hits_as_int',
    'routing',
    'search_type',
    'typed_keys',
  ],
  // bulk.json
  bulk: [
    ...WRITE_COMMON,
    '_source',
    '_source_includes',
    '_source_excludes',
    'pipeline',
    'require_data_stream',
    'list_executed_pipelines',
    'include_source_on_error',
    'type',
  ],
  // indices.get_alias.json (also GET /_aliases)
  getAlias: [...WILDCARDS, 'local', 'master_timeout'],
  // indices.put_alias.json, indices.delete_alias.json, indices.update_aliases.json
  putAlias: [...MASTER],
  deleteAlias: [...MASTER],
  updateAliases: [...MASTER],
  // indices.get_mapping.json
  getMapping: [...WILDCARDS, 'local', 'master_timeout'],
  // indices.put_mapping.json
  putMapping: [...WILDCARDS, ...MASTER, 'write_index_only'],
  // indices.get_settings.json
  getSettings: [...WILDCARDS, 'flat_settings', 'include_defaults', 'local', 'master_timeout'],
  // indices.put_settings.json
  putSettings: [...WILDCARDS, ...MASTER, 'flat_settings', 'preserve_existing', 'reopen'],
  // cat.indices.json, cat.nodes.json
  catIndices: [...CAT_COMMON, 'health', 'expand_wildcards', 'include_unloaded_segments'],
  catNodes: [...CAT_COMMON, 'full_id', 'include_unloaded_segments'],
  // indices.stats.json
  stats: [
    ...WILDCARDS,
    'completion_fields',
    'fielddata_fields',
    'fields',
    'forbid_closed_indices',
    'groups',
    'include_segment_file_sizes',
    'include_unloaded_segments',
    'level',
  ],
  // indices.flush.json, indices.forcemerge.json
  flush: [...WILDCARDS, 'force', 'wait_if_ongoing'],
  forceMerge: [...WILDCARDS, 'flush', 'max_num_segments', 'only_expunge_deletes', 'wait_for_completion'],
  // cat.health.json, cat.count.json, cat.aliases.json
  catHealth: [...CAT_COMMON],
  catCount: [...CAT_COMMON],
  catAliases: [...CAT_COMMON, 'expand_wildcards'],
  // indices.clone.json
  clone: [...MASTER, 'wait_for_active_shards'],
  // reindex.json
  reindex: [
    'refresh',
    'timeout',
    'wait_for_active_shards',
    'wait_for_completion',
    'requests_per_second',
    'scroll',
    'slices',
    'max_docs',
    'require_alias',
  ],
  // delete_by_query.json, update_by_query.json
  deleteByQuery: [...BY_QUERY],
  updateByQuery: [...BY_QUERY, 'pipeline', 'version_type'],
  // tasks.get.json, tasks.list.json, tasks.cancel.json
  getTask: ['timeout', 'wait_for_completion'],
  listTasks: [
    'nodes',
    'actions',
    'detailed',
    'parent_task_id',
    'wait_for_completion',
    'group_by',
    'timeout',
    'master_timeout',
  ],
  cancelTasks: ['nodes', 'actions', 'parent_task_id', 'wait_for_completion'],
  // cluster.get_settings.json, cluster.put_settings.json
  // info.json (GET /, HEAD /): no parameters of its own
  info: [],
  // indices.analyze.json
  analyze: ['index'],
  getClusterSettings: [...MASTER, 'flat_settings', 'include_defaults'],
  putClusterSettings: [...MASTER, 'flat_settings'],
  // cluster.health.json
  clusterHealth: [
    ...MASTER,
    'expand_wildcards',
    'level',
    'local',
    'wait_for_active_shards',
    'wait_for_nodes',
    'wait_for_events',
    'wait_for_no_relocating_shards',
    'wait_for_no_initializing_shards',
    'wait_for_status',
    'return_200_for_cluster_health_timeout',
  ],
  // indices.close.json, indices.open.json
  closeIndex: [...WILDCARDS.filter((p) => p !== 'ignore_throttled'), ...MASTER, 'wait_for_active_shards'],
  openIndex: [...WILDCARDS.filter((p) => p !== 'ignore_throttled'), ...MASTER, 'wait_for_active_shards'],
  // indices.exists_alias.json
  existsAlias: [...WILDCARDS.filter((p) => p !== 'ignore_throttled'), 'local', 'master_timeout'],
  // field_caps.json
  fieldCaps: [
    ...WILDCARDS.filter((p) => p !== 'ignore_throttled'),
    'fields',
    'include_unmapped',
    'filters',
    'types',
    'include_empty_fields',
  ],
  // nodes.info.json
  nodesInfo: ['flat_settings', 'timeout'],
  // explain.json
  explain: [...QUERY_STRING, ...SOURCE, 'preference', 'routing', 'stored_fields'],
  // indices.{put,get,delete,exists}_index_template.json, cluster.*_component_template.json,
  // indices.simulate_{index_,}template.json, indices.{get,exists,delete,put}_template.json
  putIndexTemplate: ['create', 'cause', 'master_timeout'],
  getIndexTemplate: ['flat_settings', 'local', 'master_timeout', 'include_defaults'],
  deleteIndexTemplate: [...MASTER],
  putComponentTemplate: ['create', 'master_timeout'],
  getComponentTemplate: ['flat_settings', 'local', 'master_timeout', 'include_defaults'],
  deleteComponentTemplate: [...MASTER],
  simulateIndexTemplate: ['create', 'cause', 'master_timeout', 'include_defaults'],
  legacyTemplate: ['create', 'cause', 'order', 'flat_settings', 'local', ...MASTER],
} as const satisfies Record<string, readonly string[]>;
