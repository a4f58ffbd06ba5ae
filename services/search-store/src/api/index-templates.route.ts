import type { Request, Response, Router } from 'express';
import { EsError } from '@acme/common';
import { deleteTemplatesByName } from '../catalog/index-templates/delete-templates';
import {
  parseComponentTemplateBody,
  parseIndexTemplateBody,
  type Locate,
} from '../catalog/index-templates/parse-template-body';
import { putComponentTemplate, putIndexTemplate } from '../catalog/index-templates/put-template';
import {
  getTemplates,
  renderComponentTemplate,
  renderIndexTemplate,
} from '../catalog/index-templates/read-templates';
import { simulateIndex, simulateTemplate } from '../catalog/index-templates/simulate-index';
import type { ComponentTemplate, IndexTemplate } from '../catalog/index-templates/template-types';
import { checkParams } from '../http/check-params';
import { locateJsonPath } from '../http/locate-json-path';
import { bodyObject, type JsonBodyLocals } from '../http/read-body';
import { isTruthyParam, parseBooleanParam } from '../http/query-params';
import { scopedRouter } from '../http/scoped-router';
import { ROUTE_PARAMS } from './route-params';
import type { StoreDeps } from './store-deps';

function locator(res: Response): Locate {
  const text = (res.locals as JsonBodyLocals).rawBody;
  return (path) => (text === undefined ? undefined : locateJsonPath(text, path));
}

/** `flat_settings=true`: the templates' settings as flat keys (`index.number_of_shards`). */
function flatten(
  rendered: Record<string, unknown>,
  settings: Record<string, string> | undefined,
  flat: boolean,
) {
  const template = rendered.template as Record<string, unknown> | undefined;
  if (flat && template && settings) template.settings = settings;
  return rendered;
}

/**
 * Composable index templates and component templates (ES "Index templates"), stored in Postgres
 * (catalog/index-templates/), and the legacy `_template` API answered as an ES 8 node holding no
 * legacy templates, its PUT refused.
 */
export function indexTemplatesRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  const putIndex = async (req: Request, res: Response) => {
    const template = parseIndexTemplateBody(bodyObject(req), locator(res));
    const create = parseBooleanParam(req.query.create, 'create', false);
    await putIndexTemplate(deps.pool, req.params.name as string, template, create);
    res.json({ acknowledged: true });
  };
  const putIndexParams = checkParams(ROUTE_PARAMS.putIndexTemplate);
  route(
    ['PUT', 'POST'],
    '/_index_template/:name',
    'search.admin',
    'indices:admin/index_template/put',
    putIndexParams,
    putIndex,
  );

  const getIndex = async (req: Request, res: Response) => {
    const found = await getTemplates<IndexTemplate>(
      deps.pool,
      'index',
      req.params.name as string | undefined,
    );
    const flat = isTruthyParam(req.query.flat_settings);
    res.json({
      index_templates: found.map((t) => ({
        name: t.name,
        index_template: flatten(renderIndexTemplate(t.body), t.body.template?.settings, flat),
      })),
    });
  };
  const getIndexParams = checkParams(ROUTE_PARAMS.getIndexTemplate);
  route(
    'GET',
    '/_index_template',
    'search.read',
    'indices:admin/index_template/get',
    getIndexParams,
    getIndex,
  );
  route(
    'GET',
    '/_index_template/:name',
    'search.read',
    'indices:admin/index_template/get',
    getIndexParams,
    getIndex,
  );

  route(
    'DELETE',
    '/_index_template/:name',
    'search.admin',
    'indices:admin/index_template/delete',
    checkParams(ROUTE_PARAMS.deleteIndexTemplate),
    async (req, res) => {
      await deleteTemplatesByName(deps.pool, 'index', req.params.name);
      res.json({ acknowledged: true });
    },
  );

  const simulateParams = checkParams(ROUTE_PARAMS.simulateIndexTemplate);
  route(
    'POST',
    '/_index_template/_simulate_index/:name',
    'search.admin',
    'indices:admin/index_template/simulate_index',
    simulateParams,
    async (req, res) => {
      res.json(await simulateIndex(deps.pool, req.params.name));
    },
  );
  const simulate = async (req: Request, res: Response) => {
    const body = bodyObject(req);
    const template = Object.keys(body).length > 0 ? parseIndexTemplateBody(body, locator(res)) : undefined;
    res.json(await simulateTemplate(deps.pool, req.params.name as string | undefined, template));
  };
  route(
    'POST',
    '/_index_template/_simulate',
    'search.admin',
    'indices:admin/index_template/simulate',
    simulateParams,
    simulate,
  );
  route(
    'POST',
    '/_index_template/_simulate/:name',
    'search.admin',
    'indices:admin/index_template/simulate',
    simulateParams,
    simulate,
  );

  const putComponent = async (req: Request, res: Response) => {
    const template = parseComponentTemplateBody(bodyObject(req), locator(res));
    const create = parseBooleanParam(req.query.create, 'create', false);
    await putComponentTemplate(deps.pool, req.params.name as string, template, create);
    res.json({ acknowledged: true });
  };
  const putComponentParams = checkParams(ROUTE_PARAMS.putComponentTemplate);
  route(
    ['PUT', 'POST'],
    '/_component_template/:name',
    'search.admin',
    'cluster:admin/component_template/put',
    putComponentParams,
    putComponent,
  );

  const getComponent = async (req: Request, res: Response) => {
    const found = await getTemplates<ComponentTemplate>(
      deps.pool,
      'component',
      req.params.name as string | undefined,
    );
    const flat = isTruthyParam(req.query.flat_settings);
    res.json({
      component_templates: found.map((t) => ({
        name: t.name,
        component_template: flatten(renderComponentTemplate(t.body), t.body.template.settings, flat),
      })),
    });
  };
  const getComponentParams = checkParams(ROUTE_PARAMS.getComponentTemplate);
  route(
    'GET',
    '/_component_template',
    'search.read',
    'cluster:admin/component_template/get',
    getComponentParams,
    getComponent,
  );
  route(
    'GET',
    '/_component_template/:name',
    'search.read',
    'cluster:admin/component_template/get',
    getComponentParams,
    getComponent,
  );

  route(
    'DELETE',
    '/_component_template/:name',
    'search.admin',
    'cluster:admin/component_template/delete',
    checkParams(ROUTE_PARAMS.deleteComponentTemplate),
    async (req, res) => {
      await deleteTemplatesByName(deps.pool, 'component', req.params.name);
      res.json({ acknowledged: true });
    },
  );

  // Legacy templates (deprecated since 7.8): none are ever stored, so reads answer as an ES 8 node
  // without any, and a PUT is refused with the API to use instead.
  const legacyParams = checkParams(ROUTE_PARAMS.legacyTemplate);
  route('GET', '/_template', 'search.read', 'indices:admin/template/get', legacyParams, (_req, res) => {
    res.json({});
  });
  route('GET', '/_template/:name', 'search.read', 'indices:admin/template/get', legacyParams, (req, res) => {
    const names = req.params.name.split(',');
    res.status(names.every((n) => n.includes('*')) ? 200 : 404).json({});
  });
  route(
    ['PUT', 'POST'],
    '/_template/:name',
    'search.admin',
    'indices:admin/template/put',
    legacyParams,
    () => {
      throw new EsError(
        'illegal_argument_exception',
        'legacy index templates (/_template) are not supported: use composable index templates (/_index_template)',
      );
    },
  );
  route(
    'DELETE',
    '/_template/:name',
    'search.admin',
    'indices:admin/template/delete',
    legacyParams,
    (req) => {
      throw new EsError('index_template_missing_exception', `index_template [${req.params.name}] missing`);
    },
  );

  return router;
}
