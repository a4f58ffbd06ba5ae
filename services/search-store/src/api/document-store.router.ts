import { Router } from 'express';
import { clusterSettingsRouter } from './cluster-settings.route';
import { documentsRouter } from './documents.route';
import { indicesRouter } from './indices.route';
import { infoRouter } from './info.route';
import { mappingRouter } from './mapping.route';
import { settingsRouter } from './settings.route';
import type { StoreDeps } from './store-deps';

/** Every document-store endpoint; the search engine's routes (search, count, analyze) mount beside it. */
export function documentStoreRouter(deps: StoreDeps): Router {
  const router = Router();
  router.use(infoRouter(deps));
  router.use(clusterSettingsRouter(deps));
  router.use(mappingRouter(deps));
  router.use(settingsRouter(deps));
  router.use(documentsRouter(deps));
  router.use(indicesRouter(deps));
  return router;
}
