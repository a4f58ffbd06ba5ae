/**
 * The defaults of the index settings we know, as Elasticsearch 8.17 reports them under `defaults` in
 * `GET /<index>/_settings?include_defaults` (each `Setting`'s default, as a string).
 */
export const INDEX_SETTING_DEFAULTS: Readonly<Record<string, string>> = {
  'index.auto_expand_replicas': 'false',
  'index.blocks.metadata': 'false',
  'index.blocks.read': 'false',
  'index.blocks.read_only': 'false',
  'index.blocks.read_only_allow_delete': 'false',
  'index.blocks.write': 'false',
  'index.codec': 'default',
  'index.default_pipeline': '_none',
  'index.final_pipeline': '_none',
  'index.gc_deletes': '60s',
  'index.hidden': 'false',
  'index.mapping.depth.limit': '20',
  'index.mapping.field_name_length.limit': '9223372036854775807',
  'index.mapping.nested_fields.limit': '50',
  'index.mapping.nested_objects.limit': '10000',
  'index.mapping.total_fields.ignore_dynamic_beyond_limit': 'false',
  'index.mapping.total_fields.limit': '1000',
  'index.max_docvalue_fields_search': '100',
  'index.max_inner_result_window': '100',
  'index.max_ngram_diff': '1',
  'index.max_regex_length': '1000',
  'index.max_rescore_window': '10000',
  'index.max_result_window': '10000',
  'index.max_script_fields': '32',
  'index.max_shingle_diff': '3',
  'index.max_slices_per_scroll': '1024',
  'index.max_terms_count': '65536',
  'index.mode': 'standard',
  'index.priority': '1',
  'index.refresh_interval': '1s',
  'index.routing_partition_size': '1',
  'index.write.wait_for_active_shards': '1',
};

/** The defaults an index does not override. */
export function defaultsOf(settings: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(INDEX_SETTING_DEFAULTS).filter(([key]) => !Object.hasOwn(settings, key)),
  );
}
