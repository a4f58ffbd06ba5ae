import { EsError } from '@acme/common';
import type { Pool } from 'pg';
import { serializeMapping } from '../../mapping/serialize-mapping';
import { findTemplates } from '../../storage/index-templates.repo';
import { simpleMatcher } from '../../text/simple-match';
import { nestSettings } from '../index-settings';
import { composeMappings } from './compose-mappings';
import { patternListsOverlap } from './patterns-overlap';
import { findMatchingTemplate, resolveTemplate, type ResolvedTemplate } from './resolve-index-template';
import type { ComponentTemplate, IndexTemplate } from './template-types';

interface Overlap {
  name: string;
  index_patterns: string[];
}

function render(resolved: ResolvedTemplate, overlapping: Overlap[]): Record<string, unknown> {
  return {
    template: {
      settings: nestSettings(resolved.settings),
      mappings: serializeMapping(composeMappings(resolved.mappings)),
      aliases: resolved.aliases,
    },
    overlapping,
  };
}

async function load(pool: Pool) {
  const [templates, components] = await Promise.all([
    findTemplates<IndexTemplate>(pool, 'index'),
    findTemplates<ComponentTemplate>(pool, 'component'),
  ]);
  return { templates, components: new Map(components.map((c) => [c.name, c.body])) };
}

/**
 * POST /_index_template/_simulate_index/{index} (ES "Simulate index API"): what a new index of that
 * name would get from the matching template, and the other templates that match the name but lose on
 * priority. No template matching: `{}` (as ES).
 */
export async function simulateIndex(pool: Pool, indexName: string): Promise<Record<string, unknown>> {
  const { templates, components } = await load(pool);
  const match = findMatchingTemplate(templates, indexName);
  if (!match) return {};
  const overlapping = templates
    .filter((t) => t.name !== match.name && t.body.index_patterns.some((p) => simpleMatcher(p)(indexName)))
    .map((t) => ({ name: t.name, index_patterns: t.body.index_patterns }));
  return render(resolveTemplate(match.name, match.body, components), overlapping);
}

/**
 * POST /_index_template/_simulate[/{name}] (ES "Simulate index template API"): the composed result of
 * the stored template `name`, or of the template in the body, and the templates whose patterns
 * overlap its own.
 */
export async function simulateTemplate(
  pool: Pool,
  name: string | undefined,
  given: IndexTemplate | undefined,
): Promise<Record<string, unknown>> {
  const { templates, components } = await load(pool);
  const templateName = name ?? 'simulate_template';
  const template = given ?? templates.find((t) => t.name === name)?.body;
  if (!template) {
    throw new EsError(
      'resource_not_found_exception',
      `unable to simulate template [${templateName}] that does not exist`,
    );
  }
  const missing = template.composed_of.filter((c) => !components.has(c));
  if (missing.length > 0) {
    throw new EsError(
      'invalid_index_template_exception',
      `index_template [${templateName}] invalid, cause [index template [${templateName}] specifies component templates [${missing.join(', ')}] that do not exist]`,
    );
  }
  const overlapping = templates
    .filter(
      (t) => t.name !== templateName && patternListsOverlap(template.index_patterns, t.body.index_patterns),
    )
    .map((t) => ({ name: t.name, index_patterns: t.body.index_patterns }));
  return render(resolveTemplate(templateName, template, components), overlapping);
}
