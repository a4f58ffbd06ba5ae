import { EsError, newDictionary } from '@acme/common';
import { checkMappingLimitSetting } from '../mapping/mapping-limits';

/** The index version reported in settings (`index.version.created`) for our 8.x compatibility level. */
export const INDEX_VERSION_CREATED = '8521000';

/** Settings Elasticsearch lets you change on an open index; the rest are fixed at creation. */
const DYNAMIC_SETTINGS = new Set([
  'index.number_of_replicas',
  'index.auto_expand_replicas',
  'index.refresh_interval',
  'index.max_result_window',
  'index.max_inner_result_window',
  'index.max_rescore_window',
  'index.max_docvalue_fields_search',
  'index.max_script_fields',
  'index.max_slices_per_scroll',
  'index.max_ngram_diff',
  'index.max_shingle_diff',
  'index.max_terms_count',
  'index.max_regex_length',
  'index.query.default_field',
  'index.blocks.write',
  'index.blocks.read',
  'index.blocks.read_only',
  'index.blocks.read_only_allow_delete',
  'index.blocks.metadata',
  'index.hidden',
  'index.mapping.total_fields.limit',
  'index.mapping.depth.limit',
  'index.mapping.nested_fields.limit',
  'index.mapping.field_name_length.limit',
  'index.mapping.nested_objects.limit',
  'index.mapping.total_fields.ignore_dynamic_beyond_limit',
  'index.default_pipeline',
  'index.final_pipeline',
  'index.priority',
  'index.gc_deletes',
  'index.routing.allocation.include._tier_preference',
]);
const STATIC_SETTINGS = new Set([
  'index.number_of_shards',
  'index.codec',
  'index.routing_partition_size',
  'index.mode',
]);
const STATIC_PREFIXES = ['index.analysis.', 'index.similarity.'];
/** Settings Elasticsearch sets itself; shown by GET, never accepted from a request. */
const PRIVATE_SETTINGS = new Set([
  'index.uuid',
  'index.creation_date',
  'index.provided_name',
  'index.version.created',
]);

const BOOLEAN_SETTINGS = new Set([
  'index.blocks.write',
  'index.blocks.read',
  'index.blocks.read_only',
  'index.blocks.read_only_allow_delete',
  'index.blocks.metadata',
  'index.hidden',
  'index.mapping.total_fields.ignore_dynamic_beyond_limit',
]);

/** `{"index":{"blocks":{"write":true}}}`, `{"blocks.write":true}` and `{"index.blocks.write":"true"}` all become `index.blocks.write: "true"`. */
export function flattenSettings(input: unknown, prefix = ''): Record<string, string> {
  const out = newDictionary<string>();
  if (typeof input !== 'object' || input === null) return out;
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const path = `${prefix}${key}`;
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      Object.assign(out, flattenSettings(value, `${path}.`));
    else out[path] = Array.isArray(value) ? value.map(String).join(',') : value === null ? '' : String(value);
  }
  if (prefix === '') {
    const normalised = newDictionary<string>();
    for (const [key, value] of Object.entries(out))
      normalised[key.startsWith('index.') ? key : `index.${key}`] = value;
    return normalised;
  }
  return out;
}

/** Flat keys with null values (a reset request) kept as null. */
export function flattenSettingsWithNulls(input: unknown): Record<string, string | null> {
  const out = newDictionary<string | null>();
  const walk = (value: unknown, prefix: string) => {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const path = `${prefix}${key}`;
      if (child !== null && typeof child === 'object' && !Array.isArray(child)) walk(child, `${path}.`);
      else
        out[path] =
          child === null ? null : Array.isArray(child) ? child.map(String).join(',') : String(child);
    }
  };
  if (typeof input === 'object' && input !== null) walk(input, '');
  return out;
}

function isKnown(key: string): boolean {
  return (
    DYNAMIC_SETTINGS.has(key) || STATIC_SETTINGS.has(key) || STATIC_PREFIXES.some((p) => key.startsWith(p))
  );
}

function unknownSetting(key: string): EsError {
  return new EsError(
    'illegal_argument_exception',
    `unknown setting [${key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`,
  );
}

/** Type checks of the settings we interpret. */
function checkSettingValue(key: string, value: string): void {
  checkMappingLimitSetting(key, value);
  if (BOOLEAN_SETTINGS.has(key) && value !== 'true' && value !== 'false') {
    throw new EsError(
      'illegal_argument_exception',
      `Failed to parse value [${value}] as only [true] or [false] are allowed.`,
    );
  }
  if (key === 'index.refresh_interval') checkRefreshInterval(value);
  if (key === 'index.number_of_shards' || key === 'index.number_of_replicas') {
    if (!/^\d+$/.test(value)) {
      throw new EsError(
        'illegal_argument_exception',
        `Failed to parse value [${value}] for setting [${key}] must be >= 0`,
      );
    }
    if (key === 'index.number_of_shards' && Number(value) < 1) {
      throw new EsError(
        'illegal_argument_exception',
        `Failed to parse value [${value}] for setting [${key}] must be >= 1`,
      );
    }
  }
}

/**
 * `index.refresh_interval` is a time value ≥ -1 (ES TimeValue#parseTimeValue). Any valid value is
 * accepted and stored, `-1` ("never refresh") included: every write here is visible to search when it
 * commits, as if refreshed after each write, so the interval changes nothing and `_refresh` stays a
 * valid no-op (DESIGN.md).
 */
function checkRefreshInterval(value: string): void {
  const match = /^(-?\d+)(nanos|micros|ms|s|m|h|d)?$/.exec(value.trim().toLowerCase());
  if (!match || (match[2] === undefined && match[1] !== '0' && match[1] !== '-1')) {
    throw new EsError(
      'illegal_argument_exception',
      `failed to parse setting [index.refresh_interval] with value [${value}] as a time value: unit is missing or unrecognized`,
    );
  }
  if (Number(match[1]) < -1 || (Number(match[1]) === -1 && match[2] !== undefined && match[2] !== 'ms')) {
    throw new EsError(
      'illegal_argument_exception',
      `failed to parse value [${value}] for setting [index.refresh_interval], must be >= [-1]`,
    );
  }
}

/** The settings of a new index: defaults, the request's settings (checked), and the private ones. */
export function buildIndexSettings(
  name: string,
  uuid: string,
  requested: Record<string, string>,
): Record<string, string> {
  for (const [key, value] of Object.entries(requested)) {
    if (PRIVATE_SETTINGS.has(key) || !isKnown(key)) throw unknownSetting(key);
    checkSettingValue(key, value);
  }
  return {
    'index.number_of_shards': '1',
    'index.number_of_replicas': '1',
    ...requested,
    'index.uuid': uuid,
    'index.provided_name': name,
    'index.creation_date': String(Date.now()),
    'index.version.created': INDEX_VERSION_CREATED,
  };
}

/** Static settings fixed for the index's life (`Setting.Property.Final`), closed or not. */
const FINAL_SETTINGS = new Set(['index.number_of_shards', 'index.mode', 'index.routing_partition_size']);

/**
 * Checks a PUT /<index>/_settings change; only dynamic settings may change on an open index, static
 * ones (analysis, codec) on a closed one too (MetadataUpdateSettingsService), final ones never.
 */
export function checkSettingsUpdate(
  index: { name: string; uuid: string; closed?: boolean },
  changes: Record<string, string | null>,
): void {
  const nonDynamic: string[] = [];
  for (const [key, value] of Object.entries(changes)) {
    if (!isKnown(key) || PRIVATE_SETTINGS.has(key)) throw unknownSetting(key);
    if (index.closed && FINAL_SETTINGS.has(key)) {
      throw new EsError('illegal_argument_exception', `final index setting [${key}], not updateable`);
    }
    if (!DYNAMIC_SETTINGS.has(key) && !index.closed) nonDynamic.push(key);
    else if (value !== null && DYNAMIC_SETTINGS.has(key)) checkSettingValue(key, value);
  }
  if (nonDynamic.length > 0) {
    throw new EsError(
      'illegal_argument_exception',
      `Can't update non dynamic settings [[${nonDynamic.join(', ')}]] for open indices [[${index.name}/${index.uuid}]]`,
    );
  }
}

/** Flat `a.b.c` keys → nested objects, as Elasticsearch prints settings without `flat_settings`. */
export function nestSettings(flat: Record<string, string>): Record<string, unknown> {
  // Setting keys name analyzers, filters and the like (`index.analysis.analyzer.constructor.type`):
  // null-prototype levels, so `node[part]` never reads an inherited member nor walks onto
  // Object.prototype through `__proto__` (issue 17).
  const out = newDictionary<unknown>();
  for (const key of Object.keys(flat).sort()) {
    const parts = key.split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (typeof next !== 'object' || next === null) node[part] = newDictionary<unknown>();
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1] ?? key] = flat[key];
  }
  return out;
}

/** `index.number_of_replicas` (ES's default 1 when unset). */
export function replicasOf(settings: Record<string, unknown>): number {
  return Number(settings['index.number_of_replicas'] ?? '1');
}

/** One node: replicas stay unassigned, so an index with replicas is yellow, one without green. */
export function indexHealthOf(settings: Record<string, unknown>): 'green' | 'yellow' {
  return replicasOf(settings) > 0 ? 'yellow' : 'green';
}

/** `_shards.total` of a write: the primary plus its replicas (one node: only the primary succeeds). */
export function shardsOf(settings: Record<string, string>): {
  total: number;
  successful: number;
  failed: number;
} {
  return { total: 1 + replicasOf(settings), successful: 1, failed: 0 };
}

/** `_shards` of a broadcast (refresh, flush, force merge): every copy of each index, the primaries successful. */
export function broadcastShards(indices: { settings: Record<string, unknown> }[]): {
  total: number;
  successful: number;
  failed: number;
} {
  const total = indices.reduce((n, index) => n + 1 + replicasOf(index.settings), 0);
  return { total, successful: indices.length, failed: 0 };
}

/** Index-level (not `index.`) settings flattened from a `{settings:{…}}` or bare body. */
export function sortedFlat(flat: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(flat)
      .sort()
      .map((k) => [k, flat[k] ?? '']),
  );
}
