import { EsError } from '@acme/common';
import type { Pool } from 'pg';
import {
  deleteTemplates,
  findTemplates,
  lockTemplates,
  type TemplateKind,
} from '../../storage/index-templates.repo';
import { inTransaction } from '../../storage/queryable';
import { simpleMatcher } from '../../text/simple-match';
import type { IndexTemplate } from './template-types';

/**
 * DELETE /_index_template/{name} and /_component_template/{name} (ES
 * MetadataIndexTemplateService#innerRemoveIndexTemplateV2 / #innerRemoveComponentTemplate): one name
 * may be a wildcard (`*` matching nothing is fine); a comma list names exact templates, all of which
 * must exist. A component template still in an index template's `composed_of` is not removed.
 */
export async function deleteTemplatesByName(
  pool: Pool,
  kind: TemplateKind,
  expression: string,
): Promise<void> {
  await inTransaction(pool, async (db) => {
    await lockTemplates(db);
    const existing = (await findTemplates(db, kind)).map((t) => t.name);
    const parts = expression.split(',');
    let names: string[];
    if (parts.length > 1) {
      const missing = parts.filter((p) => !existing.includes(p));
      if (missing.length > 0) throw missingTemplates(kind, [...new Set(missing)].join(','));
      names = [...new Set(parts)];
    } else {
      const match = simpleMatcher(expression);
      names = existing.filter((name) => match(name));
      if (names.length === 0) {
        if (/^\*+$/.test(expression) || expression === '_all') return;
        throw missingTemplates(kind, expression);
      }
    }
    if (kind === 'component') {
      const users = (await findTemplates<IndexTemplate>(db, 'index')).filter((t) =>
        t.body.composed_of.some((c) => names.includes(c)),
      );
      if (users.length > 0) {
        const used = [...new Set(users.flatMap((t) => t.body.composed_of.filter((c) => names.includes(c))))];
        throw new EsError(
          'illegal_argument_exception',
          `component templates [${used.join(', ')}] cannot be removed as they are still in use by index templates [${users.map((t) => t.name).join(', ')}]`,
        );
      }
    }
    await deleteTemplates(db, kind, names);
  });
}

/** ES IndexTemplateMissingException (404) for index templates, ResourceNotFoundException for components. */
function missingTemplates(kind: TemplateKind, names: string): EsError {
  if (kind === 'index') {
    return new EsError('index_template_missing_exception', `index_template [${names}] missing`);
  }
  return new EsError('resource_not_found_exception', names);
}
