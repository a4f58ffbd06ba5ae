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
import { scopedRouter, type ScopedRouter } from '../http/scoped-router';
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
 * What tells the composable index templates' API from the component templates' one: the same PUT, GET
 * and DELETE (ES "Create or update index template" / "… component template"), each with its own body,
 * rendering, action names and parameters.
 */
interface TemplateApi<Body> {
  kind: 'index' | 'component';
  path: '/_index_template' | '/_component_template';
  /** The action names' stem: `<action>/put`, `/get`, `/delete`. */
  action: 'indices:admin/index_template' | 'cluster:admin/component_template';
  params: { put: readonly string[]; get: readonly string[]; delete: readonly string[] };
  parse: (body: Record<string, unknown>, locate: Locate) => Body;
  put: (pool: StoreDeps['pool'], name: string, template: Body, create: boolean) => Promise<void>;
  render: (body: Body) => Record<string, unknown>;
  settings: (body: Body) => Record<string, string> | undefined;
  /** The GET answer's list key and each entry's key (`index_templates`, `index_template`). */
  listKey: string;
  itemKey: string;
}

const INDEX_TEMPLATES: TemplateApi<IndexTemplate> = {
  kind: 'index',
  path: '/_index_template',
  action: 'indices:admin/index_template',
  params: {
    put: ROUTE_PARAMS.putIndexTemplate,
    get: ROUTE_PARAMS.getIndexTemplate,
    delete: ROUTE_PARAMS.deleteIndexTemplate,
  },
  parse: parseIndexTemplateBody,
  put: putIndexTemplate,
  render: renderIndexTemplate,
  settings: (body) => body.template?.settings,
  listKey: 'index_templates',
  itemKey: 'index_template',
};

const COMPONENT_TEMPLATES: TemplateApi<ComponentTemplate> = {
  kind: 'component',
  path: '/_component_template',
  action: 'cluster:admin/component_template',
  params: {
    put: ROUTE_PARAMS.putComponentTemplate,
    get: ROUTE_PARAMS.getComponentTemplate,
    delete: ROUTE_PARAMS.deleteComponentTemplate,
  },
  parse: parseComponentTemplateBody,
  put: putComponentTemplate,
  render: renderComponentTemplate,
  settings: (body) => body.template.settings,
  listKey: 'component_templates',
  itemKey: 'component_template',
};

/** PUT (and POST) `<path>/:name`, GET `<path>` and `<path>/:name`, DELETE `<path>/:name` for one kind. */
function templateRoutes<Body>(deps: StoreDeps, route: ScopedRouter['route'], api: TemplateApi<Body>): void {
  const putParams = checkParams(api.params.put);
  route(
    ['PUT', 'POST'],
    `${api.path}/:name`,
    'search.admin',
    `${api.action}/put`,
    putParams,
    async (req, res) => {
      const template = api.parse(bodyObject(req), locator(res));
      const create = parseBooleanParam(req.query.create, 'create', false);
      await api.put(deps.pool, req.params.name, template, create);
      res.json({ acknowledged: true });
    },
  );

  const get = async (req: Request, res: Response) => {
    const found = await getTemplates<Body>(deps.pool, api.kind, req.params.name as string | undefined);
    const flat = isTruthyParam(req.query.flat_settings);
    res.json({
      [api.listKey]: found.map((t) => ({
        name: t.name,
        [api.itemKey]: flatten(api.render(t.body), api.settings(t.body), flat),
      })),
    });
  };
  const getParams = checkParams(api.params.get);
  route('GET', api.path, 'search.read', `${api.action}/get`, getParams, get);
  route('GET', `${api.path}/:name`, 'search.read', `${api.action}/get`, getParams, get);

  const deleteParams = checkParams(api.params.delete);
  route(
    'DELETE',
    `${api.path}/:name`,
    'search.admin',
    `${api.action}/delete`,
    deleteParams,
    async (req, res) => {
      await deleteTemplatesByName(deps.pool, api.kind, req.params.name);
      res.json({ acknowledged: true });
    },
  );
}

/**
 * Composable index templates and component templates (ES "Index templates"), stored in Postgres
 * (catalog/index-templates/), and the legacy `_template` API answered as an ES 8 node holding no
 * legacy templates, its PUT refused.
 */
export function indexTemplatesRouter(deps: StoreDeps): Router {
  const { router, route } = scopedRouter();

  templateRoutes(deps, route, INDEX_TEMPLATES);

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

  templateRoutes(deps, route, COMPONENT_TEMPLATES);

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
