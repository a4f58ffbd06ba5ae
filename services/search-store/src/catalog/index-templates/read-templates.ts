import { EsError, newDictionary } from '@acme/common';
import type { Pool } from 'pg';
import { findTemplates, type StoredTemplate, type TemplateKind } from '../../storage/index-templates.repo';
import { simpleMatcher } from '../../text/simple-match';
import { nestSettings } from '../index-settings';
import type { ComponentTemplate, IndexTemplate, TemplateContent } from './template-types';

/**
 * GET /_index_template[/{name}] and GET /_component_template[/{name}]: one name or one wildcard
 * pattern (ES's transport actions take a single name: `a,b` is a name no template has). A concrete
 * name that matches nothing is ES's 404 `resource_not_found_exception` "index template matching [x]
 * not found"; a wildcard matching nothing is an empty list.
 */
export async function getTemplates<Body>(
  pool: Pool,
  kind: TemplateKind,
  expression: string | undefined,
): Promise<StoredTemplate<Body>[]> {
  const all = await findTemplates<Body>(pool, kind);
  if (expression === undefined || expression === '' || expression === '_all') return all;
  const match = simpleMatcher(expression);
  const found = all.filter((t) => match(t.name));
  if (found.length === 0 && !expression.includes('*')) {
    const what = kind === 'index' ? 'index template' : 'component template';
    throw new EsError('resource_not_found_exception', `${what} matching [${expression}] not found`);
  }
  return found;
}

/** A template's `template` as ES prints it: settings nested (`{"index":{"number_of_shards":"1"}}`). */
function renderContent(content: TemplateContent): Record<string, unknown> {
  const out = newDictionary<unknown>();
  if (content.settings) out.settings = nestSettings(content.settings);
  if (content.mappings) out.mappings = content.mappings;
  if (content.aliases) out.aliases = content.aliases;
  return out;
}

/** ES ComposableIndexTemplate#toXContent's fields, in its order. */
export function renderIndexTemplate(template: IndexTemplate): Record<string, unknown> {
  const out: Record<string, unknown> = { index_patterns: template.index_patterns };
  if (template.template) out.template = renderContent(template.template);
  out.composed_of = template.composed_of;
  if (template.priority !== undefined) out.priority = template.priority;
  if (template.version !== undefined) out.version = template.version;
  if (template._meta !== undefined) out._meta = template._meta;
  if (template.allow_auto_create !== undefined) out.allow_auto_create = template.allow_auto_create;
  return out;
}

/** ES ComponentTemplate#toXContent's fields, in its order. */
export function renderComponentTemplate(template: ComponentTemplate): Record<string, unknown> {
  const out: Record<string, unknown> = { template: renderContent(template.template) };
  if (template.version !== undefined) out.version = template.version;
  if (template._meta !== undefined) out._meta = template._meta;
  return out;
}
