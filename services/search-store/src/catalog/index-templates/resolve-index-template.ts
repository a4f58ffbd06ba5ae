import { newDictionary } from '@acme/common';
import type { IndexMapping } from '../../mapping/mapping-types';
import { findTemplates, type StoredTemplate } from '../../storage/index-templates.repo';
import type { Queryable } from '../../storage/queryable';
import { simpleMatcher } from '../../text/simple-match';
import type { AliasDefinition } from '../alias-definitions';
import { composeMappings } from './compose-mappings';
import type { ComponentTemplate, IndexTemplate } from './template-types';

/** What the matching index template gives a new index, its parts merged in precedence order. */
export interface ResolvedTemplate {
  name: string;
  template: IndexTemplate;
  settings: Record<string, string>;
  /** The template's mappings, lowest precedence first (the request's mapping goes on top). */
  mappings: IndexMapping[];
  aliases: Record<string, AliasDefinition>;
}

/**
 * The index template for a new index (ES MetadataIndexTemplateService#findV2Template): among the
 * templates with a pattern matching the name, the highest `priority` (absent = 0). Equal priorities
 * cannot both match (PUT refuses overlapping patterns at the same priority); name order breaks a tie
 * left by a race. An index the request makes hidden (`index.hidden: true`) is not matched by a global
 * (`*`) template.
 */
export function findMatchingTemplate(
  templates: readonly StoredTemplate<IndexTemplate>[],
  indexName: string,
  hidden = false,
): StoredTemplate<IndexTemplate> | undefined {
  let winner: StoredTemplate<IndexTemplate> | undefined;
  for (const candidate of templates) {
    const patterns = candidate.body.index_patterns;
    if (hidden && patterns.some((p) => /^\*+$/.test(p))) continue;
    if (!patterns.some((pattern) => simpleMatcher(pattern)(indexName))) continue;
    if (!winner || (candidate.body.priority ?? 0) > (winner.body.priority ?? 0)) winner = candidate;
  }
  return winner;
}

/**
 * The template's contribution (ES MetadataCreateIndexService, v2 templates): component templates in
 * `composed_of` order, then the index template's own `template`; for settings and aliases a later
 * one replaces an earlier one by key, mappings are kept as a list for `composeMappings`.
 */
export function resolveTemplate(
  name: string,
  template: IndexTemplate,
  components: ReadonlyMap<string, ComponentTemplate>,
): ResolvedTemplate {
  const parts = [...template.composed_of.map((c) => components.get(c)?.template), template.template].filter(
    (part) => part !== undefined,
  );
  const settings = newDictionary<string>();
  const aliases = newDictionary<AliasDefinition>();
  const mappings: IndexMapping[] = [];
  for (const part of parts) {
    Object.assign(settings, part.settings ?? {});
    Object.assign(aliases, part.aliases ?? {});
    if (part.mappings) mappings.push(part.mappings);
  }
  return { name, template, settings, mappings, aliases };
}

/** Reads the templates (one query each kind) and resolves the one a new index `indexName` gets. */
export async function templateForNewIndex(
  db: Queryable,
  indexName: string,
  hidden = false,
): Promise<ResolvedTemplate | undefined> {
  const templates = await findTemplates<IndexTemplate>(db, 'index');
  const match = findMatchingTemplate(templates, indexName, hidden);
  if (!match) return undefined;
  const components =
    match.body.composed_of.length > 0
      ? new Map((await findTemplates<ComponentTemplate>(db, 'component')).map((c) => [c.name, c.body]))
      : new Map<string, ComponentTemplate>();
  return resolveTemplate(match.name, match.body, components);
}

/** The composed mapping of a resolved template with a request's mapping on top. */
export function mappingWith(
  resolved: ResolvedTemplate | undefined,
  request: IndexMapping | undefined,
): IndexMapping {
  const list = [...(resolved?.mappings ?? []), ...(request ? [request] : [])];
  return list.length === 1 ? list[0]! : composeMappings(list);
}
