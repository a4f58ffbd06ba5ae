import type { Pool } from 'pg';
import { getClusterSettings } from '../catalog/cluster-settings';
import { parseTimeParam } from '../http/time-param';

/** How long an instance reuses the setting it read: one statement a second at most, not one per search. */
const CACHE_MS = 1_000;

let cached: { pool: Pool; at: number; ms: number | undefined } | undefined;

/**
 * ES's `search.default_search_timeout` cluster setting (default -1, none): the time budget of a
 * search that sets no `timeout`. Read from the cluster settings at most once a second per instance,
 * so a change reaches every instance within a second.
 */
export async function defaultSearchTimeout(pool: Pool, now = Date.now()): Promise<number | undefined> {
  if (cached && cached.pool === pool && now - cached.at < CACHE_MS) return cached.ms;
  const settings = await getClusterSettings(pool);
  const raw = settings['search.default_search_timeout'];
  const ms = raw === undefined ? -1 : parseTimeParam(raw, 'search.default_search_timeout', -1);
  cached = { pool, at: now, ms: ms < 0 ? undefined : ms };
  return cached.ms;
}
