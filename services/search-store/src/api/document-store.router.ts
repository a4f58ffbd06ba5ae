import type { Router } from 'express';
import { scopedRouter } from '../http/scoped-router';
import { aliasesRouter } from './aliases.route';
import { bulkRouter } from './bulk/bulk.route';
import { catClusterRouter } from './cat/cat-cluster.route';
import { catRouter } from './cat/cat.route';
import { cloneRouter } from './clone.route';
import { clusterHealthRouter } from './cluster-health.route';
import { clusterSettingsRouter } from './cluster-settings.route';
import { documentsRouter } from './documents.route';
import { explainRouter } from './explain.route';
import { fieldCapsRouter } from './field-caps.route';
import { indicesRouter } from './indices.route';
import { infoRouter } from './info.route';
import { maintenanceRouter } from './maintenance.route';
import { mappingRouter } from './mapping.route';
import { mgetRouter } from './mget.route';
import { nodesInfoRouter } from './nodes-info.route';
import { openCloseRouter } from './open-close.route';
import { reindexRouter } from './reindex.route';
import { settingsRouter } from './settings.route';
import { statsRouter } from './stats.route';
import type { StoreDeps } from './store-deps';

/** Every document-store endpoint; the search engine's routes (search, count, analyze) mount beside it. */
export function documentStoreRouter(deps: StoreDeps): Router {
  const { router } = scopedRouter();
  router.use(infoRouter(deps));
  router.use(clusterHealthRouter(deps));
  router.use(clusterSettingsRouter(deps));
  router.use(mappingRouter(deps));
  router.use(settingsRouter(deps));
  router.use(catRouter(deps));
  router.use(nodesInfoRouter(deps));
  router.use(catClusterRouter(deps));
  router.use(statsRouter(deps));
  router.use(maintenanceRouter(deps));
  router.use(aliasesRouter(deps));
  router.use(openCloseRouter(deps));
  router.use(bulkRouter(deps));
  router.use(documentsRouter(deps));
  router.use(mgetRouter(deps));
  router.use(explainRouter(deps));
  router.use(fieldCapsRouter(deps));
  router.use(cloneRouter(deps));
  router.use(reindexRouter(deps));
  router.use(indicesRouter(deps));
  return router;
}
