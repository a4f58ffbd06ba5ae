import { EsError } from '@acme/common';
import type { Pool } from 'pg';
import { wrapCreateIndexMappingError } from '../../mapping/parse-mapping';
import { findTemplates, lockTemplates, saveTemplate } from '../../storage/index-templates.repo';
import { inTransaction } from '../../storage/queryable';
import { checkTemplateMappings, checkTemplateSettings, templateNameProblems } from './parse-template-body';
import { patternListsOverlap } from './patterns-overlap';
import { invalidTemplate, validationFailed } from './template-errors';
import type { ComponentTemplate, IndexTemplate, TemplateContent } from './template-types';

/**
 * PUT /_index_template/{name} (ES MetadataIndexTemplateService#putIndexTemplateV2), in ES's order:
 * component templates named in `composed_of` must exist, `create=true` refuses an existing name, no
 * other template may have an overlapping pattern at the same priority, then name, pattern and
 * settings rules ("Validation Failed"), then the mapping ("template after composition is invalid").
 * Template writers serialise on a table lock, so two racing PUTs cannot both pass the overlap check.
 */
export async function putIndexTemplate(
  pool: Pool,
  name: string,
  template: IndexTemplate,
  create: boolean,
): Promise<void> {
  await inTransaction(pool, async (db) => {
    await lockTemplates(db);
    const components = new Map(
      (await findTemplates<ComponentTemplate>(db, 'component')).map((c) => [c.name, c.body]),
    );
    if (template.index_patterns.some((p) => /^\*+$/.test(p))) {
      // MetadataIndexTemplateService#validateV2TemplateRequest: a global template may not hide indices.
      const parts = [...template.composed_of.map((c) => components.get(c)?.template), template.template];
      if (parts.some((part) => part?.settings?.['index.hidden'] !== undefined)) {
        throw invalidTemplate(name, 'global composable templates may not specify the setting index.hidden');
      }
    }
    const missing = template.composed_of.filter((c) => !components.has(c));
    if (missing.length > 0) {
      throw invalidTemplate(
        name,
        `index template [${name}] specifies component templates [${missing.join(', ')}] that do not exist`,
      );
    }
    const others = await findTemplates<IndexTemplate>(db, 'index');
    if (create && others.some((t) => t.name === name)) {
      throw new EsError('illegal_argument_exception', `index template [${name}] already exists`);
    }
    const priority = template.priority ?? 0;
    const overlaps = others.filter(
      (t) =>
        t.name !== name &&
        (t.body.priority ?? 0) === priority &&
        patternListsOverlap(template.index_patterns, t.body.index_patterns),
    );
    if (overlaps.length > 0) {
      throw new EsError(
        'illegal_argument_exception',
        `index template [${name}] has index patterns [${template.index_patterns.join(', ')}] matching patterns from existing templates [${overlaps.map((t) => t.name).join(',')}] with patterns (${overlaps.map((t) => `${t.name} => [${t.body.index_patterns.join(', ')}]`).join(',')}) that have the same priority [${priority}], multiple index templates may not match during index creation, please use a different priority`,
      );
    }
    const problems = templateNameProblems(name, template.index_patterns);
    const settingsProblem = settingsProblemOf(template.template);
    if (settingsProblem) problems.push(settingsProblem);
    if (problems.length > 0) throw invalidTemplate(name, validationFailed(problems));
    if (template.template?.mappings) {
      try {
        template.template.mappings = checkTemplateMappings(template.template.mappings);
      } catch (error) {
        if (!(error instanceof EsError)) throw error;
        const composed =
          template.composed_of.length > 0
            ? `with component templates [${template.composed_of.join(', ')}] `
            : '';
        const cause = wrapCreateIndexMappingError(error).toCause();
        throw new EsError(
          'illegal_argument_exception',
          `composable template [${name}] template after composition ${composed}is invalid`,
          {
            causedBy: cause,
          },
        );
      }
    }
    await saveTemplate(db, 'index', name, template);
  });
}

function settingsProblemOf(content: TemplateContent | undefined): string | undefined {
  if (!content?.settings) return undefined;
  try {
    checkTemplateSettings(content.settings);
    return undefined;
  } catch (error) {
    if (error instanceof EsError) return error.reason;
    throw error;
  }
}

/**
 * PUT /_component_template/{name} (ES MetadataIndexTemplateService#addComponentTemplate):
 * `create=true` refuses an existing name; settings and mappings are checked as an index's would be
 * (mapper_parsing_exception "Failed to parse mapping: …"), then the name rules.
 */
export async function putComponentTemplate(
  pool: Pool,
  name: string,
  template: ComponentTemplate,
  create: boolean,
): Promise<void> {
  await inTransaction(pool, async (db) => {
    await lockTemplates(db);
    const existing = await findTemplates(db, 'component');
    if (create && existing.some((t) => t.name === name)) {
      throw new EsError('illegal_argument_exception', `component template [${name}] already exists`);
    }
    if (template.template.settings?.['index.hidden'] !== undefined) {
      // MetadataIndexTemplateService#addComponentTemplate: global templates may not end up hiding.
      const globals = (await findTemplates<IndexTemplate>(db, 'index'))
        .filter(
          (t) => t.body.composed_of.includes(name) && t.body.index_patterns.some((p) => /^\*+$/.test(p)),
        )
        .map((t) => t.name);
      if (globals.length > 0) {
        throw new EsError(
          'illegal_argument_exception',
          `cannot update component template [${name}] because the following global templates would resolve to specifying the [index.hidden] setting: [${globals.join(',')}]`,
        );
      }
    }
    if (template.template.settings) checkTemplateSettings(template.template.settings);
    if (template.template.mappings) {
      try {
        template.template.mappings = checkTemplateMappings(template.template.mappings);
      } catch (error) {
        if (error instanceof EsError && error.type === 'mapper_parsing_exception') {
          throw wrapCreateIndexMappingError(error);
        }
        throw error;
      }
    }
    const problems = templateNameProblems(name, []);
    if (problems.length > 0) throw invalidTemplate(name, validationFailed(problems));
    await saveTemplate(db, 'component', name, template);
  });
}
