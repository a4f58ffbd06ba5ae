import { type Router } from 'express';
import { copyDictionary, EsError } from '@acme/common';
import { bodyObject } from '../http/read-body';
import { isTruthyParam } from '../http/query-params';
import { findClusterSettings, saveClusterSettings } from '../storage/cluster-settings.repo';
import type { Queryable } from '../storage/queryable';
import { flattenSettingsWithNulls, nestSettings } from '../catalog/index-settings';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

/**
 * Cluster settings we accept (and the boolean ones we interpret). Looked up by the request's keys:
 * without a prototype, `constructor` or `__proto__` is "not recognized" as in ES, not `Object`.
 */
const CLUSTER_SETTINGS: Record<string, 'boolean' | 'string'> = copyDictionary({
  'action.destructive_requires_name': 'boolean',
  'action.auto_create_index': 'string',
  'cluster.routing.allocation.enable': 'string',
  'cluster.max_shards_per_node': 'string',
  'search.max_buckets': 'string',
  'indices.recovery.max_bytes_per_sec': 'string',
});

/** `action.destructive_requires_name` (default true in 8.x): wildcard and `_all` deletes are refused. */
export async function isDestructiveRequiresName(db: Queryable): Promise<boolean> {
  const settings = await findClusterSettings(db);
  return settings['action.destructive_requires_name'] !== 'false';
}

function checkClusterSettings(settings: Record<string, string | null>, section: string): void {
  for (const [key, value] of Object.entries(settings)) {
    const kind = CLUSTER_SETTINGS[key];
    if (!kind) {
      throw new EsError('illegal_argument_exception', `${section} setting [${key}], not recognized`);
    }
    if (kind === 'boolean' && value !== null && value !== 'true' && value !== 'false') {
      throw new EsError(
        'illegal_argument_exception',
        `Failed to parse value [${value}] as only [true] or [false] are allowed.`,
      );
    }
  }
}

/**
 * PUT/GET /_cluster/settings (ES "Cluster update settings API"): persistent settings live in Postgres;
 * transient settings are accepted and kept the same way (one store, no restarts to forget them).
 * Values come back as strings, nested unless `flat_settings=true`.
 */
export function clusterSettingsRouter(deps: { pool: Queryable }): Router {
  const { router, route } = scopedRouter();
  route(
    'GET',
    '/_cluster/settings',
    'search.admin',
    'cluster:monitor/settings',
    checkParams(ROUTE_PARAMS.getClusterSettings),
    async (req, res) => {
      const settings = await findClusterSettings(deps.pool);
      const flat = isTruthyParam(req.query.flat_settings);
      const body: Record<string, unknown> = {
        persistent: flat ? settings : nestSettings(settings),
        transient: {},
      };
      if (isTruthyParam(req.query.include_defaults)) {
        body.defaults = flat
          ? { 'action.destructive_requires_name': 'true' }
          : { action: { destructive_requires_name: 'true' } };
      }
      res.json(body);
    },
  );
  route(
    'PUT',
    '/_cluster/settings',
    'search.admin',
    'cluster:admin/settings/update',
    checkParams(ROUTE_PARAMS.putClusterSettings),
    async (req, res) => {
      const body = bodyObject(req);
      const persistent = flattenSettingsWithNulls(body.persistent ?? {});
      const transient = flattenSettingsWithNulls(body.transient ?? {});
      checkClusterSettings(persistent, 'persistent');
      checkClusterSettings(transient, 'transient');
      await saveClusterSettings(deps.pool, { ...persistent, ...transient });
      const shown = (settings: Record<string, string | null>) => {
        const kept = Object.fromEntries(
          Object.entries(settings).filter((e): e is [string, string] => e[1] !== null),
        );
        return isTruthyParam(req.query.flat_settings) ? kept : nestSettings(kept);
      };
      res.json({ acknowledged: true, persistent: shown(persistent), transient: shown(transient) });
    },
  );
  return router;
}
