import { copyDictionary, EsError } from '@acme/common';
import { findClusterSettings, saveClusterSettings } from '../storage/cluster-settings.repo';
import { parseTimeParam } from '../http/time-param';
import type { Queryable } from '../storage/queryable';

/**
 * Cluster settings we accept (and the boolean ones we interpret). Looked up by the request's keys:
 * without a prototype, `constructor` or `__proto__` is "not recognized" as in ES, not `Object`.
 */
const CLUSTER_SETTINGS: Record<string, 'boolean' | 'string' | 'time'> = copyDictionary({
  'action.destructive_requires_name': 'boolean',
  'action.auto_create_index': 'string',
  'cluster.routing.allocation.enable': 'string',
  'cluster.max_shards_per_node': 'string',
  'search.max_buckets': 'string',
  // Read by search/contexts/search-contexts.ts when a scroll opens.
  'search.max_open_scroll_context': 'string',
  'indices.recovery.max_bytes_per_sec': 'string',
  // Read by search/default-search-timeout.ts: the `timeout` of searches that set none.
  'search.default_search_timeout': 'time',
});

/** `action.destructive_requires_name` (default true in 8.x): wildcard and `_all` deletes are refused. */
export async function isDestructiveRequiresName(db: Queryable): Promise<boolean> {
  const settings = await findClusterSettings(db);
  return settings['action.destructive_requires_name'] !== 'false';
}

/** The persistent cluster settings, flat keys, values as strings. */
export async function getClusterSettings(db: Queryable): Promise<Record<string, string>> {
  return findClusterSettings(db);
}

/**
 * ES "Cluster update settings API": persistent settings live in Postgres; transient settings are
 * accepted and kept the same way (one store, no restarts to forget them). A null resets a setting.
 */
export async function updateClusterSettings(
  db: Queryable,
  persistent: Record<string, string | null>,
  transient: Record<string, string | null>,
): Promise<void> {
  checkClusterSettings(persistent, 'persistent');
  checkClusterSettings(transient, 'transient');
  await saveClusterSettings(db, { ...persistent, ...transient });
}

function checkClusterSettings(settings: Record<string, string | null>, section: string): void {
  for (const [key, value] of Object.entries(settings)) {
    const kind = CLUSTER_SETTINGS[key];
    if (!kind) {
      throw new EsError('illegal_argument_exception', `${section} setting [${key}], not recognized`);
    }
    if (kind === 'time' && value !== null) parseTimeParam(value, key, -1);
    if (kind === 'boolean' && value !== null && value !== 'true' && value !== 'false') {
      throw new EsError(
        'illegal_argument_exception',
        `Failed to parse value [${value}] as only [true] or [false] are allowed.`,
      );
    }
  }
}
